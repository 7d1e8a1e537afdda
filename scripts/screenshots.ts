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
import { createClient, Role } from '../client/src/index.ts';
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

    mkdirSync(OUT, { recursive: true });
    const shots: [
      string,
      string,
      { width: number; height: number },
      ((page: import('playwright-core').Page) => Promise<void>)?,
    ][] = [
      ['memories', '#/memories', { width: 1280, height: 720 }],
      ['memory', `#/memory/${sam}`, { width: 1280, height: 900 }],
      [
        'search',
        '#/search?q=where%20does%20Maria%20live',
        { width: 1280, height: 900 },
        async (page) => {
          await page.getByRole('button', { name: 'Preview context' }).click();
          await page.locator('pre.markdown').waitFor();
          await page.locator('pre.markdown').scrollIntoViewIfNeeded();
        },
      ],
      ['entities', '#/entities', { width: 1280, height: 720 }],
      ['phone', '#/memories', { width: 390, height: 780 }],
    ];
    for (const [name, hash, viewport, act] of shots) {
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
    // GraphiQL, having run the overview query.
    const { page, context } = await openPage(browser, { width: 1280, height: 720 });
    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-execute-button').click();
    await page.getByRole('menuitem', { name: 'Overview' }).click();
    await page.locator('.graphiql-response', { hasText: 'viewer' }).waitFor();
    await page.screenshot({ path: join(OUT, 'graphiql.png') });
    await context.close();
    for (const name of ['memories', 'memory', 'search', 'entities', 'phone', 'graphiql']) {
      // A third of the size at no visible cost, where pngquant is installed (apt-get install pngquant).
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
  } finally {
    await browser.close();
    await client.dispose();
    await app.stop();
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
