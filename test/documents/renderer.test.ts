import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../activities/documents/browser-pool.js';
import { documentHtml } from '../../activities/documents/templates/index.js';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { DOCUMENT_KINDS, DOCUMENT_LOCALES, type DocumentKind } from '../../domain/documents.js';
import { sampleSnapshotData } from '../support/document-data.js';
import {
  decodeQrCodes,
  decodeQrCodesByPage,
  pdfIsTagged,
  pdfLanguage,
  pdfPageCount,
  pdfPageSizesMm,
  pdfPageTexts,
  pdfText,
} from '../support/pdf.js';

/**
 * The PDF renderer as the worker runs it: the system Chromium, one warm browser, pooled pages.
 * Every kind in both languages is parsed back the way a reader (text) and the driver app (QR
 * codes) would read it.
 */
const config = loadConfig();
const pool = new BrowserPool({
  executablePath: config.PDF_CHROMIUM_PATH,
  size: 2,
  logger: createLogger(config, 'renderer-test'),
});
afterAll(() => pool.close());

const data = sampleSnapshotData();
const credentials = data.travellers.map((traveller) => traveller.credential);
const BOARDING_KINDS: DocumentKind[] = ['TICKET', 'BOOKING_CONFIRMATION'];

const TITLES: Record<'ar' | 'en', Record<DocumentKind, string>> = {
  ar: {
    TICKET: 'تذكرة سفر',
    BOOKING_CONFIRMATION: 'تأكيد الحجز',
    INVOICE: 'فاتورة',
    CANCELLATION_CONFIRMATION: 'تأكيد إلغاء الحجز',
    PAYMENT_RECEIPT: 'إيصال دفع',
    REFUND_NOTICE: 'إشعار استرداد',
  },
  en: {
    TICKET: 'Ticket',
    BOOKING_CONFIRMATION: 'Booking confirmation',
    INVOICE: 'Invoice',
    CANCELLATION_CONFIRMATION: 'Cancellation confirmation',
    PAYMENT_RECEIPT: 'Payment receipt',
    REFUND_NOTICE: 'Refund notice',
  },
};

describe('PDF documents', () => {
  for (const kind of DOCUMENT_KINDS) {
    for (const locale of DOCUMENT_LOCALES) {
      it(`${kind} in ${locale} is a tagged A4 PDF in its language with the booking's facts`, async () => {
        const bytes = await pool.renderPdf(documentHtml(kind, locale, data));

        expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
        expect(pdfPageCount(bytes)).toBeGreaterThanOrEqual(1);
        for (const size of pdfPageSizesMm(bytes)) {
          expect(size.width).toBeCloseTo(210, 0);
          expect(size.height).toBeCloseTo(297, 0);
        }
        expect(pdfIsTagged(bytes)).toBe(true);
        expect(pdfLanguage(bytes)).toBe(locale);

        const text = pdfText(bytes);
        expect(text).toContain(TITLES[locale][kind]);
        expect(text).toContain(data.booking.code);
        expect(text).toContain(locale === 'ar' ? data.company.name_ar : data.company.name_en);
        expect(text).toContain(locale === 'ar' ? 'دمشق' : 'Damascus');
        if (['TICKET', 'BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'].includes(kind)) {
          for (const traveller of data.travellers) {
            for (const word of wordsOf(traveller.name)) expect(text).toContain(word);
            expect(text).toContain(traveller.seat_number);
          }
        }
        if (kind === 'PAYMENT_RECEIPT' || kind === 'REFUND_NOTICE')
          expect(text).toContain(data.payment!.number);
        if (kind === 'INVOICE') expect(text).toContain('45,000');
        if (kind === 'CANCELLATION_CONFIRMATION') {
          expect(text).toContain(locale === 'ar' ? 'ألغت الشركة الرحلة' : 'The company cancelled the trip');
          expect(text).not.toContain(data.cancellation!.reason!);
        }

        const codes = decodeQrCodes(bytes);
        if (BOARDING_KINDS.includes(kind)) expect(codes.sort()).toEqual([...credentials].sort());
        else expect(codes).toEqual([]);
      });
    }
  }

  /** Every reason a cancelled booking can carry (db/queries/booking-ending.ts), in each language's words. */
  const REASON_WORDS: Record<string, Record<'ar' | 'en', string>> = {
    TRIP_CANCELLED: { en: 'The company cancelled the trip', ar: 'ألغت الشركة الرحلة' },
    COMPANY_REJECTED: { en: 'The company declined the booking', ar: 'رفضت الشركة الحجز' },
    DECISION_DEADLINE_PASSED: {
      en: 'The company did not confirm the booking in time',
      ar: 'لم تؤكد الشركة الحجز في الوقت المحدد',
    },
    COMPANY_SUSPENDED: { en: 'The company was suspended', ar: 'تم تعليق حساب الشركة' },
    BOOKING_CANCELLED: { en: 'Cancelled by the traveller', ar: 'ألغاه المسافر' },
    BOOKING_REFUNDED: { en: 'Cancelled with a full refund', ar: 'ألغي الحجز مع استرداد كامل المبلغ' },
  };

  for (const [code, words] of Object.entries(REASON_WORDS)) {
    it(`a cancellation confirmation gives the reason ${code} in words in both languages`, async () => {
      for (const locale of DOCUMENT_LOCALES) {
        const cancelled = sampleSnapshotData({
          cancellation: { cancelled_at: '2026-11-22T08:00:00.000Z', reason: code },
        });
        const text = pdfText(
          await pool.renderPdf(documentHtml('CANCELLATION_CONFIRMATION', locale, cancelled)),
        );
        expect(text).toContain(locale === 'ar' ? 'السبب' : 'Reason');
        expect(text).toContain(words[locale]);
        expect(text).not.toContain(code);
      }
    });
  }

  it('a reason code without words prints as another reason, never as the code; written words print as they are', async () => {
    const withReason = (reason: string) =>
      sampleSnapshotData({ cancellation: { cancelled_at: '2026-11-22T08:00:00.000Z', reason } });
    const render = async (locale: 'ar' | 'en', reason: string) =>
      pdfText(await pool.renderPdf(documentHtml('CANCELLATION_CONFIRMATION', locale, withReason(reason))));

    const english = await render('en', 'SOME_FUTURE_REASON');
    const arabic = await render('ar', 'SOME_FUTURE_REASON');
    expect(english).toMatch(/Reason\s+Other\b/);
    expect(arabic).toContain('سبب آخر');
    expect(`${english}\n${arabic}`).not.toContain('SOME_FUTURE_REASON');
    expect(await render('en', 'Bus broke down')).toMatch(/Reason\s+Bus broke down/);
  });

  it('a receipt of cash the traveller announced and the office took names the office, in both languages', async () => {
    const announced = sampleSnapshotData({ payment: { ...data.payment!, source: 'transaction' } });
    const english = pdfText(await pool.renderPdf(documentHtml('PAYMENT_RECEIPT', 'en', announced)));
    const arabic = pdfText(await pool.renderPdf(documentHtml('PAYMENT_RECEIPT', 'ar', announced)));
    expect(english).toMatch(/Method\s+Cash/);
    expect(english).toMatch(/Recorded by\s+Office \(announced by the traveller\)/);
    expect(english).not.toContain('Online');
    expect(arabic).toContain('المكتب بعد إعلان المسافر');
    expect(arabic).not.toContain('إلكترونية');
  });

  it('a ticket prints one page per ticket (traveller × leg), each with its own QR and no blank page, in both languages', async () => {
    const legs = [1, 2].flatMap((leg) =>
      data.travellers.map((traveller, index) => ({
        ...traveller,
        seat_number: `${leg}${'AB'[index]}`,
        leg,
        credential: `${traveller.credential!}#leg${leg}`,
      })),
    );
    const ticket = sampleSnapshotData({ travellers: legs });
    for (const locale of DOCUMENT_LOCALES) {
      const bytes = await pool.renderPdf(documentHtml('TICKET', locale, ticket));
      expect(pdfPageCount(bytes)).toBe(legs.length);
      expect(decodeQrCodesByPage(bytes)).toEqual(legs.map((traveller) => [traveller.credential]));
      pdfPageTexts(bytes).forEach((text, index) => {
        expect(text).toContain(TITLES[locale].TICKET);
        expect(text).toContain(ticket.booking.code);
        expect(text).toContain(legs[index]!.seat_number);
        for (const word of wordsOf(legs[index]!.name)) expect(text).toContain(word);
      });
    }
  });

  it('prints every interpolated value as text: a traveller named <script> cannot inject markup', async () => {
    const hostile = '<script>document.body.innerHTML="pwned"</script>';
    const html = documentHtml(
      'TICKET',
      'en',
      sampleSnapshotData({
        travellers: [{ name: hostile, seat_number: '<b>7C</b>', leg: 1, credential: 'credential-7C' }],
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>7C</b>');

    const text = pdfText(await pool.renderPdf(html));
    expect(text).toContain(hostile);
    expect(text).toContain('<b>7C</b>');
  });

  it('runs no script and fetches nothing, behind the escaping: raw markup that reached a page stays on it', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.end('x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const bytes = await pool.renderPdf(
        `<!doctype html><html><body><p id="text">printed</p><img src="${base}/img">` +
          `<link rel="stylesheet" href="${base}/css"><style>@import url(${base}/import);</style>` +
          `<svg><image href="${base}/svg"/></svg>` +
          `<script>fetch('${base}/script'); document.getElementById('text').textContent = 'scripted'</script>` +
          `</body></html>`,
      );
      expect(pdfText(bytes)).toContain('printed');
      expect(pdfText(bytes)).not.toContain('scripted');
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('renders the next document on a new browser after the browser process is killed', async () => {
    await pool.renderPdf(documentHtml('INVOICE', 'en', data));
    const pid = await pool.browserProcessId();
    expect(pid).toBeTypeOf('number');

    process.kill(pid!, 'SIGKILL');
    await waitUntil(async () => (await pool.browserProcessId()) !== pid);

    const bytes = await pool.renderPdf(documentHtml('TICKET', 'ar', data));
    expect(pdfText(bytes)).toContain(data.booking.code);
    const relaunched = await pool.browserProcessId();
    expect(relaunched).toBeTypeOf('number');
    expect(relaunched).not.toBe(pid);
  });

  it('renders several documents at once on its pooled pages', async () => {
    const codes = ['BKPOOL01', 'BKPOOL02', 'BKPOOL03', 'BKPOOL04', 'BKPOOL05'];
    const documents = await Promise.all(
      codes.map((code) =>
        pool.renderPdf(
          documentHtml('INVOICE', 'en', sampleSnapshotData({ booking: { ...data.booking, code } })),
        ),
      ),
    );
    documents.forEach((bytes, index) => expect(pdfText(bytes)).toContain(codes[index]));
  });
});

describe('a PDF browser that stops answering', () => {
  /** A short render timeout (the worker's is RENDER_TIMEOUT_MS, 20 s) so the test waits seconds. */
  const TIMEOUT_MS = 3000;

  it('fails the renders caught on it within the render timeout, frees their page slots, and the next renders print on a new browser', async () => {
    const stopping = new BrowserPool({
      executablePath: config.PDF_CHROMIUM_PATH,
      size: 2,
      logger: createLogger(config, 'renderer-test'),
      renderTimeoutMs: TIMEOUT_MS,
    });
    let pid: number | undefined;
    try {
      // Both pages warm, so both renders below wait on the stopped browser.
      await Promise.all([1, 2].map(() => stopping.renderPdf(documentHtml('INVOICE', 'en', data))));
      pid = await stopping.browserProcessId();
      expect(pid).toBeTypeOf('number');

      // The browser hangs (as a wedged Chromium does): its process is alive and its pipe stays open.
      process.kill(pid!, 'SIGSTOP');
      const started = Date.now();
      const caught = await Promise.all(
        [1, 2].map((n) =>
          settledWithin(stopping.renderPdf(documentHtml('TICKET', 'en', data)), TIMEOUT_MS * 3).then(
            (outcome) => ({ n, ...outcome, ms: Date.now() - started }),
          ),
        ),
      );
      expect(caught.map(({ n, outcome, error }) => ({ n, outcome, error: error?.name }))).toEqual([
        { n: 1, outcome: 'rejected', error: 'TimeoutError' },
        { n: 2, outcome: 'rejected', error: 'TimeoutError' },
      ]);
      for (const { ms } of caught) expect(ms).toBeLessThan(TIMEOUT_MS * 1.5);

      // Both slots are free: two renders at once print on a new browser; the stopped one was killed.
      const codes = ['BKHUNG01', 'BKHUNG02'];
      const next = await Promise.all(
        codes.map((code) =>
          settledWithin(
            stopping.renderPdf(
              documentHtml('INVOICE', 'en', sampleSnapshotData({ booking: { ...data.booking, code } })),
            ),
            TIMEOUT_MS * 3,
          ),
        ),
      );
      expect(next.map(({ outcome }) => outcome)).toEqual(['fulfilled', 'fulfilled']);
      next.forEach(({ value }, index) => expect(pdfText(value!)).toContain(codes[index]));
      const relaunched = await stopping.browserProcessId();
      expect(relaunched).toBeTypeOf('number');
      expect(relaunched).not.toBe(pid);
      expect(processExists(pid!)).toBe(false);
    } finally {
      if (pid !== undefined && processExists(pid)) {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      }
      await stopping.close();
    }
  }, 30_000);
});

/** How `work` settled, or 'pending' once `ms` have passed (a render waiting for ever must not hang the test). */
async function settledWithin<T>(
  work: Promise<T>,
  ms: number,
): Promise<{ outcome: 'fulfilled' | 'rejected' | 'pending'; value?: T; error?: Error }> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    work.then(
      (value) => ({ outcome: 'fulfilled' as const, value }),
      (error: Error) => ({ outcome: 'rejected' as const, error }),
    ),
    new Promise<{ outcome: 'pending' }>(
      (resolve) => (timer = setTimeout(() => resolve({ outcome: 'pending' }), ms)),
    ),
  ]);
  clearTimeout(timer);
  return settled;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Words, not whole names: a text extractor may give an Arabic name inside an English line in
 * visual order (last word first), though each word reads correctly.
 */
function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
