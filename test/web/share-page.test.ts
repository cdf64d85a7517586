import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  acceptShare,
  createShare,
  NO_SHARE_IP_LIMIT,
  revokeShare,
  shareableBooking,
  shareFixture,
  type ShareFixture,
} from '../support/document-shares.js';
import { pdfPageCount, pdfText } from '../support/pdf.js';

/**
 * The share page driven end to end in the system Chromium: open the link, preview, accept, see
 * the PDF; what the browser sent is captured from its own requests (page.on('request')).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Sent {
  method: string;
  url: string;
  body: string;
}

function useBrowser() {
  const handle = {} as { browser: Browser };
  beforeAll(async () => {
    handle.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });
  afterAll(async () => {
    await handle.browser?.close();
  });
  return handle;
}

async function openPage(
  browser: Browser,
  locale = 'en-US',
): Promise<{ context: BrowserContext; page: Page; sent: Sent[] }> {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const sent: Sent[] = [];
  page.on('request', (request: Request) =>
    sent.push({ method: request.method(), url: request.url(), body: request.postData() ?? '' }),
  );
  return { context, page, sent };
}

async function companyNames(app: TestApp, companyId: string) {
  const [row] = await app.db.query<{ name_ar: string; name_en: string }>(
    `select name_ar, name_en from companies where id = $1`,
    [companyId],
  );
  return row!;
}

const statusText = (page: Page) => page.locator('#status').textContent();

/** What the page shows comes after its own requests: on a loaded machine that can take seconds. */
const SHOWN = { timeout: 15_000 };

describe('share page /share/{grantId}', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);
  const chrome = useBrowser();
  let fixture: ShareFixture;
  let bookingId: string;
  const owner = () => ({ Authorization: `Bearer ${fixture.owner.token}` });

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  it('is a private, unindexed page whose policy allows no inline script', async () => {
    const response = await app.request('/share/0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-robots-tag')).toContain('noindex');
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.text).toContain('<script src="/share/assets/share.js" defer></script>');
    expect(response.text).not.toMatch(/<script>/);
    expect((await app.request('/share/not-a-grant')).status).toBe(404);
  });

  it('opens the link, previews, accepts and shows the PDF; the secret never travels in a URL', async () => {
    const created = await createShare(app, owner(), {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'DOWNLOAD',
    });
    expect(created.response.status).toBe(201);
    const names = await companyNames(app, fixture.companyId);
    const { context, page, sent } = await openPage(chrome.browser);
    try {
      await page.goto(`${app.baseUrl}${created.response.body.data.url}`);
      await expect.poll(() => page.locator('#company').textContent(), SHOWN).toBe(names.name_en);
      expect(await page.locator('#kind').textContent()).toBe('Booking confirmation');
      // The fragment is gone from the address bar (and so from history) as soon as the page ran.
      expect(page.url()).toBe(`${app.baseUrl}/share/${created.grantId}`);

      const opening = [...sent];
      expect(opening.some((request) => request.url.includes(created.secret))).toBe(false);
      const carriers = opening.filter((request) => request.body.includes(created.secret));
      expect(carriers.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
        `POST /api/document-shares/${created.grantId}/preview`,
      ]);

      // Arabic: right to left, the company's Arabic name.
      await page.getByRole('button', { name: 'العربية' }).click();
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      expect(await page.locator('html').getAttribute('lang')).toBe('ar');
      expect(await page.locator('#company').textContent()).toBe(names.name_ar);
      await page.getByRole('button', { name: 'English' }).click();
      expect(await page.locator('html').getAttribute('dir')).toBe('ltr');

      // Intercept the document response on its way to the page and keep its bytes.
      let bytes = new Uint8Array();
      await page.route('**/document?action=view*', async (route) => {
        const response = await route.fetch();
        expect(response.status()).toBe(200);
        expect(response.headers()['content-type']).toBe('application/pdf');
        bytes = new Uint8Array(await response.body());
        await route.fulfill({ response });
      });
      const pdf = page.waitForResponse((response) => response.url().includes('/document?action=view'));
      await page.locator('#accept').click();
      expect((await pdf).status()).toBe(200);
      await page.unroute('**/document?action=view*');
      expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      expect(pdfPageCount(bytes)).toBeGreaterThanOrEqual(1);
      expect(pdfText(bytes)).toContain('Rami Haddad');
      await expect.poll(() => page.locator('#document').isVisible(), SHOWN).toBe(true);
      expect(await page.locator('#download').isVisible()).toBe(true);

      expect(sent.some((request) => request.url.includes(created.secret))).toBe(false);
      const cookies = await context.cookies();
      const share = cookies.find((cookie) => cookie.name === 'bb_share');
      expect(share).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
        path: `/api/document-shares/${created.grantId}`,
      });

      // The link is used: opening it again (another device) says so, and no second session exists.
      const second = await openPage(chrome.browser);
      try {
        await second.page.goto(`${app.baseUrl}${created.response.body.data.url}`);
        await expect.poll(() => statusText(second.page), SHOWN).toBe('This link was already used.');
      } finally {
        await second.context.close();
      }
      expect((await acceptShare(app, created.grantId, created.secret)).response.status).toBe(409);

      // Revoked: the page (reloaded, its session cookie still held) is refused the document.
      expect((await revokeShare(app, created.grantId, owner())).status).toBe(200);
      const refused = page.waitForResponse((answer) =>
        answer.url().includes(`/document-shares/${created.grantId}/`),
      );
      await page.reload();
      expect((await refused).status()).toBe(410);
      await expect.poll(() => statusText(page), SHOWN).toBe('The owner revoked this share.');
      const direct = await page.evaluate(
        async (path) => (await fetch(path)).status,
        `/api/document-shares/${created.grantId}/document?action=view&locale=en`,
      );
      expect(direct).toBe(410);
    } finally {
      await context.close();
    }
  });

  it('a link whose grant id is in capitals is accepted, then shows the document', async () => {
    const created = await createShare(app, owner(), {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    const { context, page } = await openPage(chrome.browser);
    try {
      await page.goto(`${app.baseUrl}/share/${created.grantId.toUpperCase()}#token=${created.secret}`);
      await expect.poll(() => page.locator('#kind').textContent(), SHOWN).toBe('Booking confirmation');
      const accept = page.waitForResponse((response) => response.url().includes('/accept'));
      const document = page.waitForResponse((response) => response.url().includes('/document?action=view'));
      await page.locator('#accept').click();
      expect((await accept).status()).toBe(200);
      const shown = await document;
      expect({ status: shown.status(), body: shown.status() === 200 ? '' : await shown.text() }).toEqual({
        status: 200,
        body: '',
      });
    } finally {
      await context.close();
    }
  });

  it('a VIEW share shows the document without a download button', async () => {
    const created = await createShare(app, owner(), {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    const { context, page } = await openPage(chrome.browser, 'ar-SY');
    try {
      await page.goto(`${app.baseUrl}${created.response.body.data.url}`);
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      await expect.poll(() => page.locator('#kind').textContent(), SHOWN).toBe('تأكيد الحجز');
      const pdf = page.waitForResponse((response) =>
        response.url().includes('/document?action=view&locale=ar'),
      );
      await page.locator('#accept').click();
      expect((await pdf).headers()['content-type']).toBe('application/pdf');
      await expect.poll(() => page.locator('#document').isVisible(), SHOWN).toBe(true);
      expect(await page.locator('#download').isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});

/**
 * The 5-minute link lasts 7.2 s here: creating a fresh link, opening it and accepting it in the
 * browser took up to 1.3 s on a loaded machine. The idle window is set to the link's (7.2 s), below
 * the session's hard end (36 s), so the reload after it meets the idle end.
 */
describe('share page after expiry (TIME_SCALE 0.024: link 7.2 s, idle 7.2 s)', () => {
  const TIME_SCALE = 0.024;
  const LINK_MS = 5 * 60_000 * TIME_SCALE;
  const IDLE_MS = 5 * 60_000 * TIME_SCALE;
  const app = useTestApp({ ...NO_SHARE_IP_LIMIT, TIME_SCALE, SHARE_SESSION_IDLE_MINUTES: 5 });
  const chrome = useBrowser();
  let fixture: ShareFixture;
  let bookingId: string;
  const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

  beforeAll(async () => {
    fixture = await shareFixture(app);
    bookingId = await shareableBooking(app, fixture);
  });

  it('an expired link shows that it expired; an idle session is refused the document', async () => {
    const headers = { Authorization: `Bearer ${fixture.owner.token}` };
    const body = { bookingId, documentKind: 'BOOKING_CONFIRMATION', presentation: 'VIEW' };
    const late = await createShare(app, headers, body);
    await sleep(LINK_MS + 500);
    const { context, page } = await openPage(chrome.browser);
    try {
      await page.goto(`${app.baseUrl}${late.response.body.data.url}`);
      await expect.poll(() => statusText(page), SHOWN).toBe('This link has expired.');

      const fresh = await createShare(app, headers, body);
      await page.goto(`${app.baseUrl}${fresh.response.body.data.url}`);
      const pdf = page.waitForResponse((response) => response.url().includes('/document?action=view'));
      await page.locator('#accept').click();
      expect((await pdf).status()).toBe(200);
      await sleep(IDLE_MS + 500);
      const refused = page.waitForResponse((response) => response.url().includes('/session'));
      await page.reload();
      expect((await refused).status()).toBe(410);
      await expect.poll(() => statusText(page), SHOWN).toBe('The viewing session has ended.');
    } finally {
      await context.close();
    }
  }, 60_000);
});
