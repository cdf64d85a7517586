import { beforeAll, describe, expect, it } from 'vitest';
import { revokeCredentials } from '../../../db/writes/boarding-credentials.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';

interface Listed {
  ticketId: string;
  keyId: string | null;
  revokedAt: string;
}

/**
 * GET /driver/api/revocations lists only the tickets of the signed-in company: another company's
 * revoked tickets, key ids and times would tell it that company's cancellations as they happen.
 */
describe('GET /driver/api/revocations is scoped to the driver app session company', () => {
  const app = useTestApp();
  let tripA: JourneyTrip;
  let tripB: JourneyTrip;
  let ownerUserId: string;
  let driverA: string;
  let driverB: string;

  /** Signed tickets of a confirmed journey on `trip`, revoked together (one cancellation, one instant). */
  async function revokedTickets(trip: JourneyTrip, travellers: string[]): Promise<string[]> {
    const { ticketIds } = await confirmedJourneyRows(app.db, { ownerUserId, trip, travellers });
    await app.db.transaction((client) => revokeCredentials(client, ticketIds, 'TRIP_CANCELLED'));
    return ticketIds;
  }

  /** Every entry a scanner collects by the documented protocol: since, then cursor = nextCursor. */
  async function collect(token: string | undefined, since: string, limit: number): Promise<Listed[]> {
    const listed: Listed[] = [];
    let from = `since=${encodeURIComponent(since)}`;
    for (let pages = 0; pages < 10; pages++) {
      const page = await app.request(`/driver/api/revocations?${from}&limit=${limit}`, { token });
      expect(page.status, page.text).toBe(200);
      listed.push(...(page.body.data.revocations as Listed[]));
      if (!page.body.data.hasMore) return listed;
      from = `cursor=${encodeURIComponent(page.body.data.nextCursor)}`;
    }
    throw new Error('the revocation list did not end in 10 pages');
  }

  beforeAll(async () => {
    tripA = journeyTripOf(await createCorridor(app.db));
    tripB = journeyTripOf(await createCorridor(app.db));
    ownerUserId = (await app.signIn()).userId;
    driverA = (await staffSession(app.db, app.config, tripA.companyId, 'DRIVER')).token;
    driverB = (await staffSession(app.db, app.config, tripB.companyId, 'DRIVER')).token;
  });

  it("never lists another company's revoked ticket to a driver", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const [ofA] = await revokedTickets(tripA, ['Rami Haddad']);
    const [ofB] = await revokedTickets(tripB, ['Lina Haddad']);

    const seenByB = await app.request(`/driver/api/revocations?since=${encodeURIComponent(since)}`, {
      token: driverB,
    });
    expect(seenByB.status, seenByB.text).toBe(200);
    const idsSeenByB = (seenByB.body.data.revocations as Listed[]).map((entry) => entry.ticketId);
    expect(idsSeenByB).toContain(ofB);
    expect(idsSeenByB).not.toContain(ofA);
    // One company's list must not be handed to another's scanner by a shared cache.
    expect(seenByB.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);

    const idsSeenByA = (await collect(driverA, since, 1000)).map((entry) => entry.ticketId);
    expect(idsSeenByA).toContain(ofA);
    expect(idsSeenByA).not.toContain(ofB);
  });

  it("pages through the company's own revocations past another company's at the same instants", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const ofA = await revokedTickets(tripA, ['Samer Darwish', 'Hala Darwish', 'Omar Darwish']);
    const ofB = await revokedTickets(tripB, ['Nour Khoury', 'Ziad Khoury', 'Maya Khoury']);

    // Pages of 2 over 3 of one instant: the cursor resumes within the company's own entries.
    const seenByB = (await collect(driverB, since, 2)).map((entry) => entry.ticketId);
    expect(seenByB).toEqual(expect.arrayContaining(ofB));
    expect(seenByB.filter((id) => ofA.includes(id))).toEqual([]);
    const seenByA = (await collect(driverA, since, 2)).map((entry) => entry.ticketId);
    expect(seenByA).toEqual(expect.arrayContaining(ofA));
    expect(seenByA.filter((id) => ofB.includes(id))).toEqual([]);
  });

  it('refuses a caller without a driver app session, listing nothing', async () => {
    const anonymous = await app.request('/driver/api/revocations');
    expect([anonymous.status, anonymous.body.errorCode]).toEqual([401, 'AUTH_REQUIRED']);
    expect(anonymous.body.data).toBeUndefined();
    expect(anonymous.headers.get('cache-control')).toBe('private, no-store');

    const staff = await staffSession(app.db, app.config, tripA.companyId, 'ACCOUNTANT');
    const notABusRole = await app.request('/driver/api/revocations', { token: staff.token });
    expect([notABusRole.status, notABusRole.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
    expect(notABusRole.body.data).toBeUndefined();
  });
});
