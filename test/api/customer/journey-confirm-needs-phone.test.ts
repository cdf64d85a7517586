import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { createLogger } from '../../../config/logger.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp } from '../../support/harness.js';
import { reservedPhone } from '../../support/otp-sign-up.js';
import {
  confirmJourney,
  connection,
  holdJourney,
  holdOrder,
  quote,
  setConfirmation,
  travellers,
  tripOf,
  workflowExists,
  type Caller,
} from '../../support/journeys.js';

/**
 * An identity-provider account has no phone until POST /auth/customer/complete-phone. Its confirm
 * must name a phone for each journey's lead traveller, or it is refused 409 TRAVELER_PROFILE_REQUIRED
 * with nothing written: the company's manifest needs a way to reach the traveller.
 */
describe('confirming a journey from an account that has no phone yet', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    OTP_PRELAUNCH: true,
    IDP_RATE_LIMIT_PER_IP: 100_000,
  });
  const app = useTestApp(config);

  /** A traveller who signed in with the identity provider on the mobile app: no phone yet. */
  const idpTraveller = async (): Promise<Caller & { token: string }> => {
    const idToken = await idp.mint({ audience: idp.mobileClientId });
    const response = await app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: { idToken },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.needsPhone).toBe(true);
    const token = response.body.data.accessToken as string;
    return {
      userId: response.body.data.user.id as string,
      token,
      headers: { Authorization: `Bearer ${token}` },
      channel: 'CUSTOMER_MOBILE',
    };
  };

  const completePhone = async (token: string) => {
    const phone = reservedPhone();
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    const response = await app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      token,
      json: { phone, code: sent.localCode!, method: 'sms' },
    });
    expect(response.status, response.text).toBe(200);
    return phone;
  };

  /** Everything a confirm writes for the scope, and whether the key was spent. */
  const scopeState = async (scopeId: string, journeyIds: string[], userId: string, key: string) => {
    const [row] = await app.db.query(
      `select (select array_agg(status order by id) from journeys where id = any($1::uuid[])) as journeys,
              (select array_agg(status) from hold_batches where scope_id = $2) as batches,
              (select array_agg(distinct status) from seat_allocations where owner_id = any($1::uuid[])) as allocations,
              (select count(*)::int from journey_tickets where journey_id = any($1::uuid[])) as tickets,
              (select count(*)::int from bookings where journey_id = any($1::uuid[])) as bookings,
              (select count(*)::int from confirmation_requests where scope_id = $2) as requests,
              (select count(*)::int from idempotency_records where scope = $3 and key = $4) as key_records`,
      [journeyIds, scopeId, `confirm:${userId}`, key],
    );
    return row;
  };

  const bookingPhones = async (journeyIds: string[]) =>
    (
      await app.db.query<{ passenger_phone: string }>(
        `select passenger_phone from bookings where journey_id = any($1::uuid[]) order by journey_id`,
        [journeyIds],
      )
    ).map((row) => row.passenger_phone);

  it('refuses the journey confirm with 409 TRAVELER_PROFILE_REQUIRED, writing nothing, and the same confirm succeeds after complete-phone', async () => {
    const caller = await idpTraveller();
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }], 2);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const body = {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId as string,
      // The second traveller's phone does not reach the traveller who booked.
      travellers: [{ name: 'Lead Traveller' }, { name: 'Companion', phone: reservedPhone() }],
      idempotency_key: `confirm-${randomUUID()}`,
    };
    const before = await scopeState(
      quoted.journey_id,
      [quoted.journey_id],
      caller.userId,
      body.idempotency_key,
    );

    const refused = await confirmJourney(app, caller, quoted.journey_id, body);
    expect({ status: refused.status, errorCode: refused.body.errorCode }, refused.text).toEqual({
      status: 409,
      errorCode: 'TRAVELER_PROFILE_REQUIRED',
    });
    const after = await scopeState(
      quoted.journey_id,
      [quoted.journey_id],
      caller.userId,
      body.idempotency_key,
    );
    expect(after).toEqual(before);
    expect(after).toMatchObject({ journeys: ['HELD'], batches: ['ACTIVE'], bookings: 0, key_records: 0 });

    const phone = await completePhone(caller.token);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, body);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    expect(await bookingPhones([quoted.journey_id])).toEqual([phone]);
  });

  it("confirms when the lead traveller's own phone is in the body, and the booking carries it", async () => {
    const caller = await idpTraveller();
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip }], 1);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const phone = reservedPhone();
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: [{ name: 'Lead Traveller', phone }],
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await bookingPhones([quoted.journey_id])).toEqual([phone]);
  });

  it('refuses the order confirm while one journey has no lead phone, asking no workflow, then confirms with both', async () => {
    const caller = await idpTraveller();
    const { first, second } = await connection(app.db);
    // A manual company: an admitted confirm would ask for the decision process.
    await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM' });
    const a = await quote(app, caller, [{ trip: first }], 1);
    const b = await quote(app, caller, [{ trip: second }], 1);
    const orderId = randomUUID();
    const held = await holdOrder(app, caller, orderId, [a.journey_id, b.journey_id]);
    expect(held.status, held.text).toBe(200);
    const phone = reservedPhone();
    const body = (secondLead: { name: string; phone?: string }) => ({
      hold_batch_id: held.body.data.holdBatchId as string,
      journeys: [
        { journey_id: a.journey_id, travellers: [{ name: 'Lead Traveller', phone }] },
        { journey_id: b.journey_id, travellers: [secondLead] },
      ],
      idempotency_key: `order-${randomUUID()}`,
    });
    const confirmOrderWith = (json: ReturnType<typeof body>) =>
      app.request(`/api/journey-orders/${orderId}/confirm`, {
        method: 'POST',
        headers: caller.headers,
        json,
      });
    const journeyIds = [a.journey_id, b.journey_id];
    const withoutPhone = body(travellers(1)[0]!);
    const before = await scopeState(orderId, journeyIds, caller.userId, withoutPhone.idempotency_key);

    const refused = await confirmOrderWith(withoutPhone);
    expect({ status: refused.status, errorCode: refused.body.errorCode }, refused.text).toEqual({
      status: 409,
      errorCode: 'TRAVELER_PROFILE_REQUIRED',
    });
    expect(await scopeState(orderId, journeyIds, caller.userId, withoutPhone.idempotency_key)).toEqual(
      before,
    );
    expect(await workflowExists(app, orderId, 'ORDER')).toBe(false);
    const read = await app.request(`/api/journey-orders/${orderId}`, { headers: caller.headers });
    expect(read.body.data.confirmation.status).toBe('HELD');

    const confirmed = await confirmOrderWith(body({ name: 'Lead Traveller', phone }));
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    expect(await bookingPhones(journeyIds)).toEqual([phone, phone]);
  });
});
