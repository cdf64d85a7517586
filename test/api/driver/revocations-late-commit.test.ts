import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { revokeCredentials } from '../../../db/writes/boarding-credentials.js';
import { writeTime } from '../../../db/writes/write-time.js';
import { REVOCATION_OVERLAP_SECONDS } from '../../../domain/boarding-credential.js';
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
  revokedAt: string;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * A revocation is stamped inside its transaction but seen only at its COMMIT: one stamped first and
 * committed after a later one was listed lies behind the scanner's cursor. The scanner that follows
 * nextCursor must still be handed it, however long its paging took, or a cancelled ticket keeps
 * passing the offline check.
 */
describe('GET /driver/api/revocations delivers a revocation committed after a later one was listed', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let ownerUserId: string;
  let driver: string;

  beforeAll(async () => {
    trip = journeyTripOf(await createCorridor(app.db));
    ownerUserId = (await app.signIn()).userId;
    driver = (await staffSession(app.db, app.config, trip.companyId, 'DRIVER')).token;
  });

  let pendingCommit: Deferred | undefined;

  afterEach(() => {
    vi.useRealTimers();
    pendingCommit?.resolve();
  });

  interface Page {
    revocations: Listed[];
    hasMore: boolean;
    nextCursor: string;
  }

  async function page(query: string): Promise<Page> {
    const answer = await app.request(`/driver/api/revocations?${query}`, { token: driver });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  }

  const cursor = (text: string, limit = 1) => `cursor=${encodeURIComponent(text)}&limit=${limit}`;

  /**
   * Revocation A stamped (clock_timestamp, as a refund's write time) in a transaction left open
   * until pendingCommit resolves; B and C (one journey cancelled, one instant) committed meanwhile, stamped later.
   */
  async function lateCommit(): Promise<{
    lateTicket: string;
    laterTickets: string[];
    committed: Promise<void>;
  }> {
    const [lateTicket] = (
      await confirmedJourneyRows(app.db, { ownerUserId, trip, travellers: ['Rana Saad'] })
    ).ticketIds;
    const stamped = deferred();
    const commit = deferred();
    pendingCommit = commit;
    const committed = app.db.transaction(async (client) => {
      await revokeCredentials(client, [lateTicket!], 'BOOKING_REFUNDED', await writeTime(client));
      stamped.resolve();
      await commit.promise;
    });
    await stamped.promise;
    const { ticketIds: laterTickets } = await confirmedJourneyRows(app.db, {
      ownerUserId,
      trip,
      travellers: ['Karim Saad', 'Dina Saad'],
    });
    await app.db.transaction((client) => revokeCredentials(client, laterTickets, 'TRIP_CANCELLED'));
    return { lateTicket: lateTicket!, laterTickets, committed };
  }

  /** Follows nextCursor until the list says it caught up, then polls once more (the next refresh, one full page). */
  async function pageOn(from: Page): Promise<string[]> {
    const seen: string[] = [];
    let next = from;
    for (let polls = 0; polls < 10 && next.hasMore; polls++) {
      next = await page(cursor(next.nextCursor));
      seen.push(...next.revocations.map((entry) => entry.ticketId));
    }
    expect(next.hasMore).toBe(false);
    const refresh = await page(cursor(next.nextCursor, 1000));
    return [...seen, ...refresh.revocations.map((entry) => entry.ticketId)];
  }

  it('hands it to a scanner whose paging outlasted the overlap', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { lateTicket, laterTickets, committed } = await lateCommit();

    // The scanner's first page (one entry): B, with more to come; A is not committed yet.
    const first = await page(`since=${encodeURIComponent(since)}&limit=1`);
    expect(first.revocations.map((entry) => entry.ticketId)).toEqual([[...laterTickets].sort()[0]]);
    expect(first.hasMore).toBe(true);
    pendingCommit?.resolve();
    await committed;

    // The scanner pages on only a while later (offline, rate limited): longer than the overlap.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (REVOCATION_OVERLAP_SECONDS + 60) * 1000);

    const seen = [...first.revocations.map((entry) => entry.ticketId), ...(await pageOn(first))];
    expect(seen).toEqual(expect.arrayContaining(laterTickets));
    expect(seen).toContain(lateTicket);
  });

  it('hands it on the next poll to a scanner that caught up at once', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { lateTicket, laterTickets, committed } = await lateCommit();

    const first = await page(`since=${encodeURIComponent(since)}&limit=1`);
    expect(first.hasMore).toBe(true);
    pendingCommit?.resolve();
    await committed;

    const seen = [...first.revocations.map((entry) => entry.ticketId), ...(await pageOn(first))];
    expect(seen).toEqual(expect.arrayContaining(laterTickets));
    expect(seen).toContain(lateTicket);
  });
});
