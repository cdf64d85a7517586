import { chromium, type Browser, type Page } from 'playwright-core';
import type { Logger } from '../../config/logger.js';

export interface BrowserPoolOptions {
  /** The system Chromium (config.CHROMIUM_PATH); no browser is ever downloaded. */
  executablePath: string;
  /** How many pages render at once (config.PDF_PAGE_POOL_SIZE). */
  size: number;
  logger: Logger;
}

/** The PDF settings every document shares: A4, tagged (accessible), with backgrounds. */
const PDF_OPTIONS = { format: 'A4', tagged: true, printBackground: true } as const;

/** How one document prints beyond PDF_OPTIONS: reports are landscape, with a footer on every page. */
export interface PrintOptions {
  landscape?: boolean;
  /** Chromium's footer template (its classes pageNumber and totalPages are filled in). */
  footerTemplate?: string;
}

/**
 * Nobody looks at a page that only prints, yet Chromium paints and rasterises whatever fits its
 * window after each load. A window one pixel high leaves almost nothing to paint (a ticket then
 * costs about a third less CPU); print layout follows the A4 page, not the window.
 */
const UNSEEN_VIEWPORT = { width: 794, height: 1 };

/** A render waits at most this long for its page to load and print. */
const RENDER_TIMEOUT_MS = 20_000;

/**
 * One warm Chromium per worker process with a small pool of reused pages. Launching a browser or
 * even opening a context costs hundreds of milliseconds; loading new HTML into a page that is
 * already open and printing it costs tens. The browser is launched on the first render; when it
 * crashes or is killed, the pages it owned are dropped and the next render launches a new one
 * (a render caught by the crash is tried once more on the new browser).
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private readonly idle: Page[] = [];
  private readonly waiting: (() => void)[] = [];
  private busy = 0;
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  /** Renders one HTML document to PDF bytes on a pooled page. */
  async renderPdf(html: string, print: PrintOptions = {}): Promise<Uint8Array> {
    try {
      return await this.withPage((page) => printPage(page, html, print));
    } catch (error) {
      if (this.closed || !(await this.browserWasLost(error))) throw error;
      this.options.logger.warn({ err: error }, 'browser lost during a render; rendering again on a new one');
      return this.withPage((page) => printPage(page, html, print));
    }
  }

  /** Closes the browser; renders still queued fail. Called once when the worker shuts down. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    const browser = this.browser;
    this.browser = undefined;
    for (const wake of this.waiting.splice(0)) wake();
    if (browser) await (await browser.catch(() => undefined))?.close();
  }

  /** The process id of the running browser, if one runs (tests kill it to prove recovery). */
  async browserProcessId(): Promise<number | undefined> {
    const browser = await this.browser?.catch(() => undefined);
    return browser?.isConnected() ? pidOf(browser).catch(() => undefined) : undefined;
  }

  private async withPage<T>(work: (page: Page) => Promise<T>): Promise<T> {
    await this.takeSlot();
    let page: Page | undefined;
    try {
      page = this.idle.pop() ?? (await this.newPage());
      const result = await work(page);
      if (!page.isClosed()) this.idle.push(page);
      return result;
    } catch (error) {
      await page?.close().catch(() => undefined);
      throw error;
    } finally {
      this.giveSlot();
    }
  }

  private async takeSlot(): Promise<void> {
    while (this.busy >= this.options.size) {
      if (this.closed) break;
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
    if (this.closed) throw new Error('the browser pool is closed');
    this.busy += 1;
  }

  private giveSlot(): void {
    this.busy -= 1;
    this.waiting.shift()?.();
  }

  private async newPage(): Promise<Page> {
    const browser = await this.currentBrowser();
    const page = await browser.newPage({ viewport: UNSEEN_VIEWPORT });
    page.setDefaultTimeout(RENDER_TIMEOUT_MS);
    return page;
  }

  private currentBrowser(): Promise<Browser> {
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      // A failed launch is forgotten so the next render tries again.
      launching.catch(() => {
        if (this.browser === launching) this.browser = undefined;
      });
    }
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    const started = Date.now();
    // playwright passes --no-sandbox unless chromiumSandbox is set: workers run in containers as root.
    // Printing needs no GPU (on the benchmark machine, which has none, the flag measured the same).
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      args: ['--disable-gpu'],
      // The worker's shutdown closes the pool once in-flight renders finish; playwright's own
      // signal handlers would kill the browser under them at the first SIGTERM.
      handleSIGTERM: false,
      handleSIGINT: false,
      handleSIGHUP: false,
    });
    browser.on('disconnected', () => this.forget(browser));
    this.options.logger.info(
      { version: browser.version(), ms: Date.now() - started },
      'browser launched for PDF rendering',
    );
    return browser;
  }

  /** Drops a browser that went away, with the idle pages it owned. */
  private forget(browser: Browser): void {
    for (let index = this.idle.length - 1; index >= 0; index -= 1) {
      if (this.idle[index]!.context().browser() === browser) this.idle.splice(index, 1);
    }
    void this.browser?.then(
      (current) => {
        if (current === browser) this.browser = undefined;
      },
      () => undefined,
    );
    if (!this.closed) this.options.logger.warn('PDF browser disconnected');
  }

  /** Whether a render failed because its browser went away (then a new browser may succeed). */
  private async browserWasLost(error: unknown): Promise<boolean> {
    const current = await this.browser?.catch(() => undefined);
    if (!current || !current.isConnected()) return true;
    return error instanceof Error && /closed|crash|disconnected/i.test(error.message);
  }
}

async function printPage(page: Page, html: string, print: PrintOptions): Promise<Uint8Array> {
  await page.setContent(html, { waitUntil: 'load' });
  const footer = print.footerTemplate
    ? { displayHeaderFooter: true, headerTemplate: '<span></span>', footerTemplate: print.footerTemplate }
    : {};
  return page.pdf({ ...PDF_OPTIONS, landscape: print.landscape ?? false, ...footer });
}

/** Chromium names its own processes over the DevTools protocol; the browser process is type "browser". */
async function pidOf(browser: Browser): Promise<number | undefined> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await session.send('SystemInfo.getProcessInfo');
    return processInfo.find((info) => info.type === 'browser')?.id;
  } finally {
    await session.detach().catch(() => undefined);
  }
}
