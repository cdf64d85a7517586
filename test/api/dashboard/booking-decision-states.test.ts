import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { decideBooking, journeyIn, scopeSnapshot } from '../../support/scope-states.js';

/**
 * SPEC "Company decision on a journey request": PATCH /bookings/{id}/status "decides a request whose
 * status is PENDING_CONFIRMATION ... When the journey request is missing or closed, the response is 409
 * JOURNEY_CONFIRMATION_STATE_CONFLICT and no fallback to the legacy booking update occurs", and
 * "Check-in, no-show and completion belong to the operations room". Two cells no other test names: an
 * approval of a request its company rejected, and the legacy {status} CHECKED_IN, NO_SHOW or COMPLETED
 * while the request is still pending (booking-decisions.test.ts has them after an approval). Each is
 * 409 and writes nothing.
 */
describe('PATCH /dashboard/api/bookings/{id}/status: a request rejected, or still pending', () => {
  const app = useTestApp();

  it('an APPROVE of a request the company rejected is 409 JOURNEY_CONFIRMATION_STATE_CONFLICT; nothing written', async () => {
    const journey = await journeyIn(app, 'CANCELLED');
    const before = await scopeSnapshot(app.db, journey.scope);
    const approve = await decideBooking(
      app,
      journey.trip.companyId,
      journey.bookingId,
      { decision: 'APPROVE' },
      'OWNER',
    );
    expect([approve.status, approve.body.errorCode], approve.text).toEqual([
      409,
      'JOURNEY_CONFIRMATION_STATE_CONFLICT',
    ]);
    expect(await scopeSnapshot(app.db, journey.scope)).toEqual(before);
  });

  it('a pending request: the legacy {status} CHECKED_IN, NO_SHOW or COMPLETED is 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED; the request stays pending', async () => {
    const journey = await journeyIn(app, 'REQUESTED');
    const before = await scopeSnapshot(app.db, journey.scope);
    for (const status of ['CHECKED_IN', 'NO_SHOW', 'COMPLETED']) {
      const legacy = await decideBooking(app, journey.trip.companyId, journey.bookingId, { status }, 'OWNER');
      expect([legacy.status, legacy.body.errorCode], `${status}: ${legacy.text}`).toEqual([
        409,
        'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
      ]);
    }
    expect(await scopeSnapshot(app.db, journey.scope)).toEqual(before);
  });
});
