import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/harness.js';
import {
  bookJourney,
  connection,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  type LegChoice,
  waitUntil,
} from '../support/journeys.js';
import { createStaffMember, staffLogin } from '../support/staff.js';

/**
 * Every journey transition that changes a booking row records its webhook event in the same
 * transaction (outbox_events): confirm (booking.created, and booking.confirmed when no company
 * decides), the last approval (booking.confirmed), a rejection or a passed deadline
 * (booking.cancelled).
 */
type Modes = ['AUTO_CONFIRM' | 'MANUAL_CONFIRM', 'AUTO_CONFIRM' | 'MANUAL_CONFIRM'];

async function journeyOverTwoCompanies(app: TestApp, modes: Modes, window = 15) {
  const { first, second } = await connection(app.db);
  await setConfirmation(app.db, first.companyId, { mode: modes[0], window });
  await setConfirmation(app.db, second.companyId, { mode: modes[1], window });
  const caller = await mobileTraveller(app);
  const legs: LegChoice[] = [{ trip: first }, { trip: second }];
  const { journeyId } = await bookJourney(app, caller, legs);
  return { journeyId, first, second };
}

/** The events of each booking row of the journey, per company, in a stable order. */
async function eventsOf(app: TestApp, journeyId: string) {
  const rows = await app.db.query<{ company_id: string; events: string[] }>(
    `select b.company_id, coalesce(array_agg(e.event order by e.event) filter (where e.id is not null), '{}') as events
     from bookings b left join outbox_events e on e.booking_id = b.id
     where b.journey_id = $1 group by b.id, b.company_id`,
    [journeyId],
  );
  return Object.fromEntries(rows.map((row) => [row.company_id, row.events]));
}

async function decide(app: TestApp, companyId: string, journeyId: string, decision: 'APPROVE' | 'REJECT') {
  const member = await createStaffMember(app.db, companyId, 'DISPATCHER');
  const staff = await staffLogin(app, { email: member.email, password: member.password });
  const [booking] = await app.db.query<{ id: string }>(
    `select id from bookings where journey_id = $1 and company_id = $2`,
    [journeyId, companyId],
  );
  const response = await app.request(`/dashboard/api/bookings/${booking!.id}/status`, {
    method: 'PATCH',
    headers: staff.writeHeaders,
    json: { decision },
  });
  expect(response.status, response.text).toBe(200);
}

describe('webhook events of journey confirmations', () => {
  const app = useTestApp();

  it('confirmed at once: booking.created and booking.confirmed for each booking row', async () => {
    const { journeyId, first, second } = await journeyOverTwoCompanies(app, ['AUTO_CONFIRM', 'AUTO_CONFIRM']);
    expect(await eventsOf(app, journeyId)).toEqual({
      [first.companyId]: ['booking.confirmed', 'booking.created'],
      [second.companyId]: ['booking.confirmed', 'booking.created'],
    });
  });

  it('a request: booking.created only; the approval adds booking.confirmed to every row', async () => {
    const { journeyId, first, second } = await journeyOverTwoCompanies(app, [
      'MANUAL_CONFIRM',
      'AUTO_CONFIRM',
    ]);
    expect(await eventsOf(app, journeyId)).toEqual({
      [first.companyId]: ['booking.created'],
      [second.companyId]: ['booking.created'],
    });
    await decide(app, first.companyId, journeyId, 'APPROVE');
    expect(await eventsOf(app, journeyId)).toEqual({
      [first.companyId]: ['booking.confirmed', 'booking.created'],
      [second.companyId]: ['booking.confirmed', 'booking.created'],
    });
  });

  it('a rejection cancels every row: booking.cancelled once each', async () => {
    const { journeyId, first, second } = await journeyOverTwoCompanies(app, [
      'MANUAL_CONFIRM',
      'MANUAL_CONFIRM',
    ]);
    await decide(app, second.companyId, journeyId, 'REJECT');
    expect(await eventsOf(app, journeyId)).toEqual({
      [first.companyId]: ['booking.cancelled', 'booking.created'],
      [second.companyId]: ['booking.cancelled', 'booking.created'],
    });
  });
});

describe('webhook events when the decision deadline passes (TIME_SCALE 0.004: 15 minutes → 3.6 s)', () => {
  const app = useTestApp({ TIME_SCALE: 0.004 });

  it('booking.cancelled for each row of the expired request', async () => {
    const { journeyId, first, second } = await journeyOverTwoCompanies(app, [
      'MANUAL_CONFIRM',
      'AUTO_CONFIRM',
    ]);
    await waitUntil(
      () => journeyFacts(app.db, journeyId),
      (facts) => facts.journey?.status === 'CANCELLED',
      20_000,
      'the journey to be CANCELLED',
    );
    expect(await eventsOf(app, journeyId)).toEqual({
      [first.companyId]: ['booking.cancelled', 'booking.created'],
      [second.companyId]: ['booking.cancelled', 'booking.created'],
    });
  });
});
