import { chromium, errors, type Browser, type Page } from 'playwright-core';
import type { Logger } from '../../config/logger.js';

export interface BrowserPoolOptions {
  /** The system Chromium (config.CHROMIUM_PATH); no browser is ever downloaded. */
  executablePath: string;
  /** How many pages render at once (config.PDF_PAGE_POOL_SIZE). */
  size: number;
  logger: Logger;
  /** How long one render may take (RENDER_TIMEOUT_MS unless given; tests make it short). */
  renderTimeoutMs?: number;
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

/**
 * A render waits at most this long for its page to load and print (under the activity's 30 s
 * start-to-close timeout). Every wait on the browser inside a render ends by then: a browser that
 * has not answered stopped answering (hung, not exited: it never disconnects, and Playwright gives
 * page.pdf and page.close no timeout of their own). It is killed, the render fails with a
 * TimeoutError (the activity's retry runs on a new browser) and its page slot is free again.
 */
export const RENDER_TIMEOUT_MS = 20_000;

/**
 * The last tenth of a render's time is kept for closing the page of a render that failed (a page
 * that did not load stops waiting that much earlier); a page not closed by then means a hung browser.
 */
const CLOSE_GRACE_SHARE = 0.1;

/**
 * One warm Chromium per worker process with a small pool of reused pages. Launching a browser or
 * even opening a context costs hundreds of milliseconds; loading new HTML into a page that is
 * already open and printing it costs tens. The browser is launched on the first render; when it
 * crashes or is killed, the pages it owned are dropped and the next render launches a new one
 * (a render caught by the crash is tried once more on the new browser). A browser that stops
 * answering is killed when a render's deadline passes (RENDER_TIMEOUT_MS), and replaced the same way.
 * Its pages run no script and make no request: the escaping of every value (html.ts) is the first
 * guard, this the second.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private readonly idle: Page[] = [];
  private readonly waiting: (() => void)[] = [];
  private busy = 0;
  private closed = false;
  /** Each browser's process id, asked for at launch: a hung browser answers no question. */
  private readonly pids = new WeakMap<Browser, number>();
  /** Browsers this pool killed because they stopped answering. */
  private readonly killed = new WeakSet<Browser>();
  private readonly renderTimeoutMs: number;
  private readonly closeGraceMs: number;

  constructor(private readonly options: BrowserPoolOptions) {
    this.renderTimeoutMs = options.renderTimeoutMs ?? RENDER_TIMEOUT_MS;
    this.closeGraceMs = this.renderTimeoutMs * CLOSE_GRACE_SHARE;
  }

  /** Renders one HTML document to PDF bytes on a pooled page. */
  async renderPdf(html: string, print: PrintOptions = {}): Promise<Uint8Array> {
    try {
      return await this.withPage((page, deadline) => this.printPage(page, deadline, html, print));
    } catch (error) {
      // A render that ran out of time fails: its retry would outlast the activity's timeout.
      if (this.closed || error instanceof errors.TimeoutError || !(await this.browserWasLost(error)))
        throw error;
      this.options.logger.warn({ err: error }, 'browser lost during a render; rendering again on a new one');
      return this.withPage((page, deadline) => this.printPage(page, deadline, html, print));
    }
  }

  /** Closes the browser; renders still queued fail. Called once when the worker shuts down. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    const browser = this.browser;
    this.browser = undefined;
    for (const wake of this.waiting.splice(0)) wake();
    const running = await browser?.catch(() => undefined);
    if (!running) return;
    // A hung browser would never answer close(): it is killed once a render's time has passed.
    const hung = setTimeout(() => this.kill(running, 'browser.close'), this.renderTimeoutMs);
    await running.close().finally(() => clearTimeout(hung));
  }

  /** The process id of the running browser, if one runs (tests kill or stop it to prove recovery). */
  async browserProcessId(): Promise<number | undefined> {
    const browser = await this.browser?.catch(() => undefined);
    return browser?.isConnected() ? this.pids.get(browser) : undefined;
  }

  /** `work` on a pooled page, by the render's deadline; the page slot is given back however it ends. */
  private async withPage<T>(work: (page: Page, deadline: number) => Promise<T>): Promise<T> {
    await this.takeSlot();
    const deadline = Date.now() + this.renderTimeoutMs;
    let page: Page | undefined;
    try {
      page = this.idle.pop() ?? (await this.newPage(deadline));
      const result = await work(page, deadline);
      if (!page.isClosed() && !this.killed.has(browserOf(page))) this.idle.push(page);
      return result;
    } catch (error) {
      if (page && !this.killed.has(browserOf(page))) {
        const closeBy = Math.max(deadline, Date.now() + this.closeGraceMs);
        await this.answered(browserOf(page), 'page.close', page.close(), closeBy).catch(() => undefined);
      }
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

  private async newPage(deadline: number): Promise<Page> {
    const browser = await this.currentBrowser();
    // browser.newPage opens the page's context too; a browser killed meanwhile may leave it unsettled.
    const page = await this.answered(
      browser,
      'browser.newPage',
      browser.newPage({ viewport: UNSEEN_VIEWPORT, javaScriptEnabled: false }),
      deadline,
    );
    // Our documents need nothing from outside the HTML (system fonts, inline SVG); markup that got
    // past the escaping still fetches nothing: no request to the worker's network or its files.
    await this.answered(
      browser,
      'page.route',
      page.route('**/*', (route) => route.abort()),
      deadline,
    );
    page.setDefaultTimeout(this.renderTimeoutMs);
    return page;
  }

  /**
   * Loads the HTML (Playwright's own timeout ends that wait early enough to close the page after)
   * and prints it by the deadline.
   */
  private async printPage(
    page: Page,
    deadline: number,
    html: string,
    print: PrintOptions,
  ): Promise<Uint8Array> {
    await page.setContent(html, {
      waitUntil: 'load',
      timeout: Math.max(1, deadline - this.closeGraceMs - Date.now()),
    });
    const footer = print.footerTemplate
      ? { displayHeaderFooter: true, headerTemplate: '<span></span>', footerTemplate: print.footerTemplate }
      : {};
    const printing = page.pdf({ ...PDF_OPTIONS, landscape: print.landscape ?? false, ...footer });
    return this.answered(browserOf(page), 'page.pdf', printing, deadline);
  }

  /**
   * What `browser` answers to `call`, if it answers by `deadline`. When it has not, it stopped
   * answering: it is killed and forgotten (the next render launches a new one) and the wait fails
   * with a TimeoutError, as a page that did not load in time does. A browser that goes away ends
   * the wait at once (Playwright may leave a call made just before unsettled for good).
   */
  private async answered<T>(
    browser: Browser,
    call: string,
    answer: Promise<T>,
    deadline: number,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let gone: (() => void) | undefined;
    const unanswered = new Promise<never>((_, reject) => {
      gone = () => reject(new Error(`${call}: the PDF browser disconnected`));
      if (!browser.isConnected()) return gone();
      browser.once('disconnected', gone);
      timer = setTimeout(
        () => {
          this.kill(browser, call);
          reject(
            new errors.TimeoutError(
              `${call}: Timeout ${this.renderTimeoutMs}ms exceeded: the PDF browser stopped answering`,
            ),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    try {
      return await Promise.race([answer, unanswered]);
    } finally {
      clearTimeout(timer);
      browser.off('disconnected', gone!);
    }
  }

  /** Kills a browser that stopped answering by its process id (close() would wait on it too); forgets it. */
  private kill(browser: Browser, call: string): void {
    if (this.killed.has(browser) || !browser.isConnected()) return;
    this.killed.add(browser);
    const pid = this.pids.get(browser);
    this.options.logger.warn(
      { browserPid: pid, call, timeoutMs: this.renderTimeoutMs },
      'PDF browser stopped answering; killed, the next render launches a new one',
    );
    if (pid === undefined) void browser.close().catch(() => undefined);
    else {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.forget(browser);
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
      timeout: this.renderTimeoutMs,
    });
    browser.on('disconnected', () => this.forget(browser));
    // Asked now, while the browser answers: a hung one is killed by this id.
    const pid = await this.answered(
      browser,
      'SystemInfo.getProcessInfo',
      pidOf(browser),
      Date.now() + this.renderTimeoutMs,
    );
    if (pid !== undefined) this.pids.set(browser, pid);
    this.options.logger.info(
      { version: browser.version(), browserPid: pid, ms: Date.now() - started },
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
    if (!this.closed && !this.killed.has(browser)) this.options.logger.warn('PDF browser disconnected');
  }

  /** Whether a render failed because its browser went away (then a new browser may succeed). */
  private async browserWasLost(error: unknown): Promise<boolean> {
    const current = await this.browser?.catch(() => undefined);
    if (!current || !current.isConnected()) return true;
    return error instanceof Error && /closed|crash|disconnected/i.test(error.message);
  }
}

/** The browser a pooled page belongs to (pooled pages are opened by browser.newPage). */
function browserOf(page: Page): Browser {
  return page.context().browser()!;
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
