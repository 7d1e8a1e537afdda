// `npm pack` ships the lockfile as npm-shrinkwrap.json (the one lockfile npm honours inside a
// package), so `npm install -g` of the tarball gets the versions the tests ran with, not whatever
// the ranges allow today (several newer majors need Node 22). prepack writes it, postpack removes it.
import { copyFileSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const shrinkwrap = new URL('npm-shrinkwrap.json', root);
if (process.argv[2] === 'write') copyFileSync(new URL('package-lock.json', root), shrinkwrap);
else rmSync(shrinkwrap, { force: true });
