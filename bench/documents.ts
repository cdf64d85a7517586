/**
 * npm run bench:documents — ticket PDFs through the project's renderer (the worker's BrowserPool:
 * one warm Chromium, pooled pages), called directly, at concurrency 4: documents/s, p50, p99.
 * In the same run, the same HTML rendered with a new browser context per document (the warm
 * browser kept, everything else new) as the baseline, and the ratio of the two.
 * Targets: pool p50 < 100 ms and ≥ 15 documents/s.
 *
 * Settings: BENCH_SECONDS (default 15 per phase), BENCH_CONCURRENCY (4), PDF_PAGE_POOL_SIZE and
 * PDF_CHROMIUM_PATH as the worker reads them.
 */
import { cpus, loadavg } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { BrowserPool } from '../activities/documents/browser-pool.js';
import { documentHtml } from '../activities/documents/templates/index.js';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../config/logger.js';
import type { SnapshotData } from '../domain/documents.js';
import { sampleSnapshotData } from '../test/support/document-data.js';
import { runLoops, type LoadResult } from './lib/load.js';
import { figure, recordFigures } from './lib/results.js';
import { benchSetting, log } from './lib/settings.js';

const CONCURRENCY = benchSetting('BENCH_CONCURRENCY', 4);
const SECONDS = benchSetting('BENCH_SECONDS', 15);
const WARM_UP_DOCUMENTS = 8;

const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
const logger = createLogger(config, 'bench-documents');

/** Varied tickets (one to four travellers, both languages), built before timing starts. */
function ticketPages(): string[] {
  const base = sampleSnapshotData();
  return Array.from({ length: 16 }, (_, index) => {
    const travellers = Array.from({ length: (index % 4) + 1 }, (__, seat) => ({
      name: seat % 2 ? `ليلى الخطيب ${index}` : `Rami Haddad ${index}`,
      seat_number: `${seat + 1}${'ABCD'[index % 4]}`,
      leg: 1,
      credential: `${base.travellers[0]!.credential!}#${index}-${seat}`,
    }));
    const data: SnapshotData = { ...base, booking: { ...base.booking, code: `BKBENCH${index}` }, travellers };
    return documentHtml('TICKET', index % 2 ? 'en' : 'ar', data);
  });
}

async function viaPool(pages: string[]): Promise<LoadResult> {
  const pool = new BrowserPool({
    executablePath: config.PDF_CHROMIUM_PATH,
    size: config.PDF_PAGE_POOL_SIZE,
    logger,
  });
  try {
    for (let index = 0; index < WARM_UP_DOCUMENTS; index += 1)
      await pool.renderPdf(pages[index % pages.length]!);
    return await runLoops(
      `pool (${config.PDF_PAGE_POOL_SIZE} reused pages)`,
      { concurrency: CONCURRENCY, seconds: SECONDS },
      (iteration) => pool.renderPdf(pages[iteration % pages.length]!),
    );
  } finally {
    await pool.close();
  }
}

async function viaNewContexts(pages: string[]): Promise<LoadResult> {
  const browser: Browser = await chromium.launch({ executablePath: config.PDF_CHROMIUM_PATH });
  const render = async (html: string) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'load' });
      return await page.pdf({ format: 'A4', tagged: true, printBackground: true });
    } finally {
      await context.close();
    }
  };
  try {
    for (let index = 0; index < WARM_UP_DOCUMENTS; index += 1) await render(pages[index % pages.length]!);
    return await runLoops(
      'new context per document',
      { concurrency: CONCURRENCY, seconds: SECONDS },
      (iteration) => render(pages[iteration % pages.length]!),
    );
  } finally {
    await browser.close();
  }
}

function report(result: LoadResult): void {
  log(
    `${result.label}: ${result.requests} documents in ${result.seconds.toFixed(1)} s = ` +
      `${result.perSecond.toFixed(1)} documents/s, p50 ${result.p50.toFixed(0)} ms, ` +
      `p99 ${result.p99.toFixed(0)} ms, errors ${result.errors}`,
  );
}

log(
  `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; concurrency ${CONCURRENCY}, ${SECONDS} s per phase; ` +
    `Chromium ${config.PDF_CHROMIUM_PATH}`,
);
const pages = ticketPages();
const pooled = await viaPool(pages);
report(pooled);
const contexts = await viaNewContexts(pages);
report(contexts);
log(
  `pool vs new context: ${(contexts.p50 / pooled.p50).toFixed(1)}× lower p50, ` +
    `${(pooled.perSecond / contexts.perSecond).toFixed(1)}× the throughput`,
);
const met = pooled.p50 < 100 && pooled.perSecond >= 15 && pooled.errors === 0;
log(`targets (p50 < 100 ms, ≥ 15 documents/s): ${met ? 'met' : 'NOT met'}`);
recordFigures('documents', [
  figure('documents warm pool', pooled.perSecond, 'documents/s', { op: '>=', value: 15 }),
  figure('documents warm pool p50', pooled.p50, 'ms', { op: '<', value: 100 }),
  figure('documents new context each (baseline)', contexts.perSecond, 'documents/s'),
]);
