// Screenshots of the inspector and GraphiQL for the docs (docs/screenshots/*.png): a server on
// a temporary database, a few conversations sent through the typed client, then Chromium (the
// Debian package, through playwright-core, every request outside 127.0.0.1 blocked) on each page.
// Run: npm run docs:screenshots (builds web/ first).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import WebSocket from 'ws';
import { createClient, Role, type SymbiosisClient } from '../client/src/index.ts';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { buildApp } from '../server/http/app.ts';
import { launchBrowser, openPage } from '../test/helpers/browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs/screenshots');

const CONVERSATIONS: [string, string][] = [
  ['trip-planning', 'Hi! My name is Alex and I live in Berlin.'],
  ['trip-planning', 'I love hiking in the Alps with my sister Maria.'],
  ['trip-planning', 'My email is alex@example.com, send the itinerary there.'],
  ['trip-planning', 'Maria and Tom are coming to Lisbon with me in May.'],
  ['work', 'I work at Acme as a data engineer.'],
  ['work', 'Tom is my manager at Acme.'],
  ['work', 'Actually, call me Sam.'],
  ['food', 'I am allergic to peanuts.'],
  ['food', 'I prefer green tea over coffee.'],
  ['food', 'I like JRPGs.'],
  ['food', 'I no longer like JRPGs.'],
  ['food', 'Maria lives in Porto now.'],
];

type Viewport = { width: number; height: number };
type Page = import('playwright-core').Page;
type Browser = Awaited<ReturnType<typeof launchBrowser>>;
/** A page of the inspector: its file name, its route, the window size, and what to do before the shot. */
type Shot = { name: string; hash: string; viewport: Viewport; act?: (page: Page) => Promise<void> };

/** The conversations, through the typed client, and the confirmed memory whose page is shown; its id. */
async function seed(client: SymbiosisClient): Promise<number> {
  for (const [sessionId, text] of CONVERSATIONS) {
    await client.addTurn({ input: { sessionId, role: Role.User, text } });
    if (text.startsWith('Hi!'))
      await client.addTurn({
        input: { sessionId, role: Role.Assistant, text: 'Nice to meet you, Alex! Where are you headed?' },
      });
  }
  await client.runJobs(); // entities from the accurate NER pass
  const { memories } = await client.memories({ q: 'Sam', first: 1 });
  const sam = memories.edges[0]!.node.id;
  await client.confirmMemory({ id: sam });
  return sam;
}

const shotsOf = (memoryId: number): Shot[] => [
  { name: 'memories', hash: '#/memories', viewport: { width: 1280, height: 720 } },
  { name: 'memory', hash: `#/memory/${memoryId}`, viewport: { width: 1280, height: 900 } },
  {
    name: 'search',
    hash: '#/search?q=where%20does%20Maria%20live',
    viewport: { width: 1280, height: 900 },
    act: async (page) => {
      await page.getByRole('button', { name: 'Preview context' }).click();
      await page.locator('pre.markdown').waitFor();
      await page.locator('pre.markdown').scrollIntoViewIfNeeded();
    },
  },
  { name: 'entities', hash: '#/entities', viewport: { width: 1280, height: 720 } },
  { name: 'phone', hash: '#/memories', viewport: { width: 390, height: 780 } },
];

/** Each inspector page once live and idle; a request leaving the machine fails the run. */
async function shootInspector(browser: Browser, base: string, shots: Shot[]) {
  for (const { name, hash, viewport, act } of shots) {
    const { page, context, blocked } = await openPage(browser, viewport);
    await page.goto(`${base}/${hash}`);
    await page.locator('main h1').first().waitFor();
    await page.locator('.live', { hasText: /^live$/ }).waitFor();
    await page.waitForLoadState('networkidle');
    await act?.(page);
    await page.screenshot({ path: join(OUT, `${name}.png`) });
    if (blocked.length > 0) throw new Error(`requests left the machine: ${blocked.join(', ')}`);
    await context.close();
  }
}

/** GraphiQL, having run the overview query. */
async function shootGraphiql(browser: Browser, base: string) {
  const { page, context } = await openPage(browser, { width: 1280, height: 720 });
  await page.goto(`${base}/graphql`);
  await page.locator('.graphiql-execute-button').click();
  await page.getByRole('menuitem', { name: 'Overview' }).click();
  await page.locator('.graphiql-response', { hasText: 'viewer' }).waitFor();
  await page.screenshot({ path: join(OUT, 'graphiql.png') });
  await context.close();
}

/** A third of the size at no visible cost, where pngquant is installed (apt-get install pngquant). */
function compress(names: string[]) {
  for (const name of names) {
    try {
      execFileSync('pngquant', [
        '--quality',
        '70-90',
        '--speed',
        '1',
        '--force',
        '--ext',
        '.png',
        join(OUT, `${name}.png`),
      ]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    console.log(`docs/screenshots/${name}.png  ${Math.round(statSync(join(OUT, `${name}.png`)).size / 1024)} KB`);
  }
}

async function main() {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-web.mjs')], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'sm-shots-'));
  const store = await openStore({ path: join(dir, 'shots.db'), env: {}, config: { extractor: { mode: 'heuristic' } } });
  const app = buildApp({ store, host: '127.0.0.1', port: 0, jobs: false, logger: pino({ level: 'silent' }) });
  const { url } = await app.start();
  const base = url.replace(/\/graphql$/, '');
  const client = createClient({ url, webSocketImpl: WebSocket });
  const browser = await launchBrowser();
  try {
    const shots = shotsOf(await seed(client));
    mkdirSync(OUT, { recursive: true });
    await shootInspector(browser, base, shots);
    await shootGraphiql(browser, base);
    compress([...shots.map((s) => s.name), 'graphiql']);
  } finally {
    await browser.close();
    await client.dispose();
    await app.stop();
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
