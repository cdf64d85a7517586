import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookJourney,
  confirmOrder,
  connection,
  holdOrder,
  mobileTraveller,
  quote,
  setConfirmation,
  tripOf,
} from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';
import { dispatch } from '../../support/operations.js';
import { signedInAdmin, type AdminBrowser } from '../admin/helpers.js';

/**
 * The confirmation projection (GET /journey-orders/{orderId}, GET /journeys/{bookingId}) answers
 * failure_reason from the enum its OpenAPI schema states, for every way a journey is cancelled: a
 * client generated from the document, or one validating answers, reads each of them.
 */
describe('failure_reason of a cancelled journey or order, as the document states it', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let admin: AdminBrowser;
  let stated: (string | null)[];

  beforeAll(async () => {
    ({ browser: admin } = await signedInAdmin(app, { role: 'ADMIN' }));
    const document = (await app.request('/api/openapi.json')).body;
    const schema = document.components.schemas.JourneyConfirmationProjection.properties.failure_reason;
    stated = [...schema.anyOf.flatMap((entry: { enum?: string[] }) => entry.enum ?? []), null];
  });

  it('an order whose trips its company cancelled reads TRIP_CANCELLED, a stated value', async () => {
    const traveller = await mobileTraveller(app);
    const first = await tripOf(app.db);
    const second = await tripOf(app.db, { companyId: first.companyId, days: 5 });
    const outbound = await quote(app, traveller, [{ trip: first }], 1);
    const back = await quote(app, traveller, [{ trip: second }], 1);
    const orderId = randomUUID();
    const held = await holdOrder(app, traveller, orderId, [outbound.journey_id, back.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(app, traveller, orderId, held.body.data.holdBatchId, [
      { journeyId: outbound.journey_id, partySize: 1 },
      { journeyId: back.journey_id, partySize: 1 },
    ]);
    expect(confirmed.body.data.confirmation.status, confirmed.text).toBe('CONFIRMED');

    const dispatcher = await staffSession(app.db, app.config, first.companyId, 'DISPATCHER');
    for (const trip of [first, second]) {
      const cancelled = await dispatch(app, dispatcher, trip.tripId, {
        action: 'CANCEL',
        reason: 'Road closed',
      });
      expect(cancelled.status, cancelled.text).toBe(200);
    }

    const order = await app.request(`/api/journey-orders/${orderId}`, { headers: traveller.headers });
    expect(order.status, order.text).toBe(200);
    expect(order.body.data).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'TRIP_CANCELLED',
    });
    expect(stated).toContain(order.body.data.failure_reason);
  });

  it('a journey waiting for a company that is suspended reads COMPANY_SUSPENDED, a stated value', async () => {
    const world = await connection(app.db);
    await setConfirmation(app.db, world.first.companyId, { mode: 'MANUAL_CONFIRM' });
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
    expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');

    const suspended = await admin.suspend(world.first.companyId);
    expect(suspended.status, suspended.text).toBe(200);

    const journey = await readJourney(app, traveller.headers, booked.journeyId);
    expect(journey).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'COMPANY_SUSPENDED',
    });
    expect(stated).toContain(journey.failure_reason);
  });
});

/** The traveller's projection of the journey (GET /journeys/{id} takes the journey's id). */
async function readJourney(app: TestApp, headers: Record<string, string>, journeyId: string) {
  const read = await app.request(`/api/journeys/${journeyId}`, { headers });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
}
