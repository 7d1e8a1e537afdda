// The inspector's entry: the stylesheet and the app, mounted into index.html's #app.
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
