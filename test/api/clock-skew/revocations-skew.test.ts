import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeCredentials } from '../../../db/writes/boarding-credentials.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';
import { skewClock } from '../../support/clock-skew.js';

/**
 * README (driver app): "once a scanner following `nextCursor` has caught up, its next poll starts 300 s
 * before the first page of that catch-up ... so it is handed every revocation whose transaction
 * committed within 300 s of its stamp". The restart point is the API host's `new Date()` less 300 s
 * (api/driver/credentials.ts asOf, domain/boarding-credential.ts revocationPage), the stamps are
 * PostgreSQL's. An API host 6 minutes ahead of the database puts the restart point 60 s in the
 * database's future: a ticket revoked (cancelled) right after, committed at once, is never handed to
 * the scanner, and its QR keeps passing the offline check.
 */
describe('clock skew: revocation cursor on an API host 6 min ahead of the database', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let ownerUserId: string;
  let driver: string;
  afterEach(() => skewClock(0));

  beforeAll(async () => {
    trip = journeyTripOf(await createCorridor(app.db));
    ownerUserId = (await app.signIn()).userId;
    driver = (await staffSession(app.db, app.config, trip.companyId, 'DRIVER')).token;
  });

  async function page(query: string) {
    const answer = await app.request(`/driver/api/revocations?${query}`, { token: driver });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as { revocations: { ticketId: string }[]; hasMore: boolean; nextCursor: string };
  }

  it('a revocation committed at once after the scanner caught up is in its next poll', async () => {
    const [ticket] = (await confirmedJourneyRows(app.db, { ownerUserId, trip, travellers: ['Rana Saad'] }))
      .ticketIds;
    skewClock(6 * 60_000);
    let current = await page('limit=100');
    while (current.hasMore)
      current = await page(`cursor=${encodeURIComponent(current.nextCursor)}&limit=100`);

    // The traveller's booking is cancelled: its credential revoked, committed at once (database clock).
    await app.db.transaction((client) => revokeCredentials(client, [ticket!], 'TRIP_CANCELLED'));

    const next = await page(`cursor=${encodeURIComponent(current.nextCursor)}&limit=100`);
    expect(next.revocations.map((entry) => entry.ticketId)).toContain(ticket);
  }, 60_000);
});
