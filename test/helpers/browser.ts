// A real browser for the inspector and GraphiQL tests: the Debian chromium package driven by
// playwright-core. A missing browser fails the test (it never skips): .ci/run installs it.
import { existsSync } from 'node:fs';
import playwright from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = process.env.SM_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does), or point SM_CHROMIUM at one`,
    );
  }
  // From ESM the namespace may hold the API under `default`.
  const { chromium } = (playwright as unknown as { default?: typeof playwright }).default ?? playwright;
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export type TestPage = {
  page: Page;
  context: BrowserContext;
  /** Requests to anything but 127.0.0.1, aborted. */
  blocked: string[];
  /** Every request URL the page made (to check that no token travels in one). */
  requested: string[];
  /** Uncaught page errors and console errors (CSP violations show up there). */
  problems: string[];
};

/** A fresh context (its own storage) and page; every request outside 127.0.0.1 is blocked. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<TestPage> {
  const context = await browser.newContext({ viewport });
  const blocked: string[] = [];
  const requested: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    requested.push(url.href);
    if (url.hostname === '127.0.0.1') return route.continue();
    blocked.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return { page, context, blocked, requested, problems };
}

/** Presses Tab until the focused element matches `test` (at most `limit` presses); true when it got there. */
export async function tabTo(
  page: Page,
  test: (element: { tag: string; text: string; label: string | null }) => boolean,
  limit = 60,
): Promise<boolean> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      return element
        ? {
            tag: element.tagName.toLowerCase(),
            text: element.textContent?.trim() ?? '',
            label: element.getAttribute('aria-label'),
          }
        : null;
    });
    if (focused && test(focused)) return true;
  }
  return false;
}

/** Whether the page scrolls sideways (content wider than the viewport). */
export const overflowsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
