import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { documentHtml } from '../../activities/documents/templates/index.js';
import { loadConfig } from '../../config/index.js';
import type { DocumentKind, DocumentLocale, SnapshotData } from '../../domain/documents.js';
import { sampleSnapshotData } from '../support/document-data.js';

/**
 * Text a company typed prints in either script whatever the document's language: a pickup point
 * created without English (POST /dashboard/api/pickup-locations) has its Arabic name, address and
 * directions in both, and a city's English name is whatever was typed. Each such line is laid out in
 * its own direction, so an Arabic reader finds its full stop at its end and its house number at its
 * start, and the route reads from the origin to the destination.
 *
 * Measured where Chromium lays the worker's own HTML out (the engine the PDF prints with), on a page
 * of our own that runs a script to read the character boxes (the worker's pages run none).
 */
const config = loadConfig();
let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: config.PDF_CHROMIUM_PATH });
});
afterAll(() => browser?.close());

/** The horizontal centres of the first and last characters of `text` where the page lays it out. */
async function ends(html: string, text: string): Promise<{ first: number; last: number }> {
  const page = await browser.newPage();
  try {
    await page.setContent(html);
    const found = await page.evaluate((wanted) => {
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(wanted);
        if (at < 0) continue;
        const centre = (offset: number) => {
          const range = document.createRange();
          range.setStart(node, offset);
          range.setEnd(node, offset + 1);
          const rect = range.getBoundingClientRect();
          return rect.left + rect.width / 2;
        };
        return { first: centre(at), last: centre(at + wanted.length - 1) };
      }
      return null;
    }, text);
    if (!found) throw new Error(`"${text}" is not on the page`);
    return found;
  } finally {
    await page.close();
  }
}

const DIRECTIONS = 'مقابل الجامع الأموي، بجانب الصيدلية.';
const ADDRESS = '12 شارع بغداد';
const base = sampleSnapshotData();

/** What the API stores for a pickup point created without English: the Arabic text in both. */
const arabicOnlyPickup: SnapshotData['trip']['pickup'] = {
  name: { ar: 'كراج البولمان', en: 'كراج البولمان' },
  address: { ar: ADDRESS, en: ADDRESS },
  directions: { ar: DIRECTIONS, en: DIRECTIONS },
};

function printed(kind: DocumentKind, locale: DocumentLocale, trip: Partial<SnapshotData['trip']>): string {
  return documentHtml(kind, locale, sampleSnapshotData({ trip: { ...base.trip, ...trip } }));
}

describe('typed text in a document keeps its own direction', () => {
  for (const kind of ['TICKET', 'BOOKING_CONFIRMATION', 'INVOICE', 'PAYMENT_RECEIPT'] as const) {
    it(`${kind} in English: Arabic pickup directions end with their full stop on the left`, async () => {
      const directions = await ends(printed(kind, 'en', { pickup: arabicOnlyPickup }), DIRECTIONS);
      // Right to left the closing "." is left of the first word; left to right it was printed before it.
      expect(directions.last).toBeLessThan(directions.first);
    });
  }

  it('an Arabic pickup address in an English ticket starts with its house number on the right', async () => {
    const address = await ends(printed('TICKET', 'en', { pickup: arabicOnlyPickup }), ADDRESS);
    expect(address.first).toBeGreaterThan(address.last);
  });

  it('the Arabic ticket lays the same directions out the same way (control)', async () => {
    const directions = await ends(printed('TICKET', 'ar', { pickup: arabicOnlyPickup }), DIRECTIONS);
    expect(directions.last).toBeLessThan(directions.first);
  });

  it('a Latin pickup address in an Arabic ticket ends with its full stop on the right', async () => {
    const pickup = { ...base.trip.pickup!, address: { ar: 'Gate 3, Baghdad Street.', en: 'Gate 3.' } };
    const address = await ends(printed('TICKET', 'ar', { pickup }), 'Gate 3, Baghdad Street.');
    expect(address.last).toBeGreaterThan(address.first);
  });

  it('English pickup text in an English ticket still reads left to right', async () => {
    const address = await ends(printed('TICKET', 'en', {}), 'Airport Road, Damascus');
    expect(address.last).toBeGreaterThan(address.first);
  });

  it('cities named in Arabic in an English ticket read from origin to destination along the arrow', async () => {
    const trip = { origin: { ar: 'دمشق', en: 'دمشق' }, destination: { ar: 'حلب', en: 'حلب' } };
    const html = printed('TICKET', 'en', trip);
    const [origin, arrow, destination] = await Promise.all(
      ['دمشق', '→', 'حلب'].map(async (text) => (await ends(html, text)).first),
    );
    expect(origin).toBeLessThan(arrow!);
    expect(arrow).toBeLessThan(destination!);
  });

  it('the Arabic ticket prints the origin right of the arrow and the destination left of it (control)', async () => {
    const html = printed('TICKET', 'ar', {});
    const [origin, arrow, destination] = await Promise.all(
      ['دمشق', '←', 'حلب'].map(async (text) => (await ends(html, text)).first),
    );
    expect(origin).toBeGreaterThan(arrow!);
    expect(arrow).toBeGreaterThan(destination!);
  });
});
