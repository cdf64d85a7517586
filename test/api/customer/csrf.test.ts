import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';

/**
 * SPEC "Authentication": web state-changing calls send X-CSRF-Token equal to the CSRF cookie. The
 * writes are taken from the OpenAPI document (every non-GET customer operation a traveller cookie
 * may call), so a route added later is checked without being listed here; the GETs that change
 * state are listed below.
 */

/** Cookie operations that change nothing and so take no CSRF header (route declaration `csrf: false`). */
const READ_ONLY = new Set(['POST /api/journeys/search']);

/**
 * Cookie GETs that open the traveller's account in the chosen company's program (loyalty.ts
 * `opensAccount`, declared `csrf: true`): a cross-site navigation carries the Lax access cookie, so
 * they take the header like a write. The sweep below refuses each of them without it.
 */
const OPENING_READS = [
  'GET /api/loyalty/account',
  'GET /api/loyalty/transactions',
  'GET /api/loyalty/referral',
];

interface Operation {
  security?: Record<string, string[]>[];
}

describe('CSRF on the customer API', () => {
  const app = useTestApp();

  /** The cookie operations that change state: the document's non-GET ones and OPENING_READS. */
  async function cookieWrites(): Promise<string[]> {
    const document = (await app.request('/api/openapi.json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    return Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => JSON.stringify(operation.security).includes('travellerCookie'))
        .map(([method]) => `${method.toUpperCase()} ${path}`)
        .filter((operation) =>
          operation.startsWith('GET ') ? OPENING_READS.includes(operation) : !READ_ONLY.has(operation),
        ),
    );
  }

  it('refuses every cookie write without the matching header, with the mobile marker, or without the CSRF cookie', async () => {
    const writes = await cookieWrites();
    // Holds, bookings, shares, loyalty, support, favorites, sign-out...: the sweep has found them.
    expect(writes).toEqual(
      expect.arrayContaining(['POST /api/bookings', 'POST /api/document-shares', 'POST /api/loyalty/redeem']),
    );
    expect(writes.length).toBeGreaterThanOrEqual(29);
    // The GETs that open a loyalty account are still cookie operations of the document, swept below.
    expect(writes).toEqual(expect.arrayContaining(OPENING_READS));

    const traveller = await app.signIn();
    const variants: Record<string, string>[] = [
      { Cookie: traveller.cookie },
      { Cookie: traveller.cookie, 'X-CSRF-Token': 'wrong' },
      { Cookie: traveller.cookie, 'X-Client': 'mobile' },
      { Cookie: `bb_access=${traveller.token}`, 'X-CSRF-Token': traveller.csrf },
    ];
    const refusals = [];
    for (const write of writes) {
      const [method, path] = write.split(' ') as [string, string];
      const url = path.replaceAll(/\{[^}]+\}/g, () => randomUUID());
      for (const headers of variants) {
        const init =
          method === 'DELETE' || method === 'GET' ? { method, headers } : { method, headers, json: {} };
        const answer = await app.request(url, init);
        refusals.push({
          write,
          headers: Object.keys(headers).join('+'),
          status: answer.status,
          code: answer.body?.errorCode,
        });
      }
    }
    expect(
      refusals.filter((refusal) => refusal.status !== 403 || refusal.code !== 'CSRF_TOKEN_INVALID'),
    ).toEqual([]);
    // Refused before anything ran: the sign-out among them did not end the session.
    const me = await app.request('/api/auth/customer/me', { headers: { Cookie: traveller.cookie } });
    expect({ status: me.status, userId: me.body?.data?.id }).toEqual({
      status: 200,
      userId: traveller.userId,
    });
  });
});
