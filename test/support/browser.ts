// A real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for the web
// dashboard's end-to-end tests: one browser per describe, a fresh context and page per test, and
// any error thrown in the page fails the test. Without Chromium the suite is skipped (required-tool.ts).
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { onPath, requireTool } from './required-tool';

/** The browser to drive; NEXQ_TEST_CHROMIUM names another. */
export const CHROMIUM = process.env.NEXQ_TEST_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserTest {
  /** This test's page (fresh context: no cookies, no cache). */
  readonly page: Page;
}

/** Call inside a `describe`. Playwright gives each launch a fresh temporary profile directory. */
export function useBrowser(): BrowserTest {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let pageErrors: string[] = [];

  requireTool({
    name: 'Chromium',
    missing: () => (onPath(CHROMIUM) ? undefined : `no executable ${CHROMIUM}`),
    install: 'apt-get install chromium',
  });
  before(async function () {
    this.timeout(30_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  });

  after(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    pageErrors = [];
    context = await browser!.newContext();
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    page = undefined;
    if (pageErrors.length > 0) throw new Error(`the page threw: ${pageErrors.join('; ')}`);
  });

  return {
    get page() {
      if (!page) throw new Error('the page is only available inside a test');
      return page;
    },
  };
}
