/**
 * Real-browser tests of the console: Debian's Chromium driven by playwright-core (no browser is
 * downloaded at run time), against the app listening on a free port with the console as built
 * into dist/web. They run once (on SQLite): the console is the same on either engine, and the
 * API under it is tested on both.
 *
 * Where Chromium is not installed, the suite is skipped with a note, except in CI (`CI` set),
 * where .ci/run installs it and its absence is a failure.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ignoreFailure } from '../../src/lib/ignore-failure.js';
import { createTestApp, ENGINE, type TestApp, type TestAppOptions } from '../harness.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean) as string[];
export const CHROMIUM = CANDIDATES.find((file) => existsSync(file));

/** Whether this run has a browser to drive; without one outside CI the suite says why and skips. */
export const BROWSER_TESTS = ENGINE === 'sqlite' && (CHROMIUM !== undefined || Boolean(process.env.CI));
if (ENGINE === 'sqlite' && !CHROMIUM && !process.env.CI) {
  console.warn("The console's browser tests are skipped: Chromium is not installed (apt-get install chromium, or set CHROMIUM_PATH).");
}

/** Where each test's screenshots go; CI keeps the folder. */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots');

/** A port free right now, so the app's public address (its cookie origin) is known before it starts. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ConsoleUnderTest {
  t: TestApp;
  base: string;
  browser: Browser;
  /** Uncaught errors and CSP violations seen in any page so far; a test expects none. */
  problems: string[];
  /** A fresh browser profile (no cookies) with a page, at `width` × 900 (a phone: 390). */
  newPage(options?: { width?: number; height?: number }): Promise<{ context: BrowserContext; page: Page }>;
  /** Saves a full-page screenshot as `<name>.png` in SCREENSHOTS. */
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** The app, listening, and Chromium. */
export async function startConsole(options: TestAppOptions = {}): Promise<ConsoleUnderTest> {
  if (!CHROMIUM) throw new Error('Chromium is not installed: apt-get install chromium (or set CHROMIUM_PATH to a Chromium or Chrome executable)');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...options, config: { publicBaseUrl: base, ...options.config } });
  await t.app.listen({ port, host: '127.0.0.1' });
  // Chromium's sandbox needs user namespaces, which containers (and root) often lack.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  return {
    t,
    base,
    browser,
    problems,
    async newPage({ width = 1280, height = 900 } = {}) {
      const context = await browser.newContext({ baseURL: base, viewport: { width, height }, ...(width < 600 ? { isMobile: true, hasTouch: true } : {}) });
      contexts.push(context);
      // A step that cannot happen fails in seconds, naming what it waited for.
      context.setDefaultTimeout(8_000);
      const page = await context.newPage();
      // An uncaught error or a CSP violation in the console is a defect, whatever the test checks.
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
      });
      return { context, page };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      for (const context of contexts) await ignoreFailure(context.close(), 'a context the browser already closed is gone either way');
      await browser.close();
      await t.close();
    },
  };
}

/** Signs `page` in through the console's own form. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
}
