import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { createLogger } from '../../../config/logger.js';
import { createCorridor } from '../../support/factories.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp } from '../../support/harness.js';
import { reservedPhone } from '../../support/otp-sign-up.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';

/**
 * complete-phone merges an older phone-only account only when the phone was its one way in. A
 * verified e-mail is another: the identity provider signs in to that account by the address, and
 * password recovery reaches it. Such an account is refused (its owner keeps it); an address
 * nobody verified is only a contact, and the account still merges.
 */
describe('POST /auth/customer/complete-phone and an old account with an e-mail', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    OTP_PRELAUNCH: true,
    IDP_RATE_LIMIT_PER_IP: 100_000,
  });
  const app = useTestApp(config);

  /** A traveller who signed in with the identity provider on the mobile app: no phone yet. */
  const idpTraveller = async () => {
    const response = await app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: { idToken: await idp.mint({ audience: idp.mobileClientId }) },
    });
    expect(response.body.data.needsPhone).toBe(true);
    return { userId: response.body.data.user.id as string, token: response.body.data.accessToken as string };
  };

  /** An old phone-only account (no password, no subject) with its profile, an e-mail and a booking. */
  const oldTraveller = async (emailVerified: boolean) => {
    const phone = reservedPhone();
    const email = `old-${randomUUID().slice(0, 8)}@example.test`;
    const [passenger] = await app.db.query<{ id: string }>(
      `insert into passengers (phone, name, created_at) values ($1, 'Old', now() - interval '400 days') returning id`,
      [phone],
    );
    const [user] = await app.db.query<{ id: string }>(
      `insert into users (phone, name, email, email_verified_at, passenger_id, created_at)
       values ($1, 'Old', $2, case when $3 then now() end, $4, now() - interval '400 days') returning id`,
      [phone, email, emailVerified, passenger!.id],
    );
    const booked = await confirmedJourneyRows(app.db, {
      ownerUserId: user!.id,
      trip: journeyTripOf(await createCorridor(app.db)),
      travellers: ['Old Traveller'],
    });
    return { phone, email, userId: user!.id, passengerId: passenger!.id, bookingId: booked.bookingId };
  };

  const codeFor = async (phone: string) => {
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    return sent.localCode!;
  };

  const complete = (token: string, phone: string, code: string) =>
    app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      token,
      json: { phone, code, method: 'sms' },
    });

  /** Both accounts, the old profile and the old booking: every row the merge would change. */
  const snapshot = async (
    me: { userId: string },
    old: { userId: string; passengerId: string; bookingId: string; phone: string },
  ) => ({
    users: await app.db.query('select * from users where id = any($1::uuid[]) order by id', [
      [me.userId, old.userId],
    ]),
    passengers: await app.db.query('select * from passengers where id = $1 or phone = $2 order by id', [
      old.passengerId,
      old.phone,
    ]),
    booking: await app.db.query('select owner_user_id, passenger_id from bookings where id = $1', [
      old.bookingId,
    ]),
  });

  it('refuses an old account with a verified e-mail with ACCOUNT_LINK_REQUIRES_RECOVERY and changes nothing', async () => {
    const old = await oldTraveller(true);
    const me = await idpTraveller();
    const code = await codeFor(old.phone);
    const before = await snapshot(me, old);

    const response = await complete(me.token, old.phone, code);

    expect({ status: response.status, errorCode: response.body?.errorCode }).toEqual({
      status: 409,
      errorCode: 'ACCOUNT_LINK_REQUIRES_RECOVERY',
    });
    expect(await snapshot(me, old)).toEqual(before);
    const [oldAccount] = await app.db.query<{ email_verified: boolean }>(
      'select status, email, phone, email_verified_at is not null as email_verified from users where id = $1',
      [old.userId],
    );
    expect(oldAccount).toEqual({
      status: 'ACTIVE',
      email: old.email,
      phone: old.phone,
      email_verified: true,
    });
    const [booking] = await app.db.query('select owner_user_id from bookings where id = $1', [old.bookingId]);
    expect(booking).toEqual({ owner_user_id: old.userId });
    const [mine] = await app.db.query('select phone, status from users where id = $1', [me.userId]);
    expect(mine).toEqual({ phone: null, status: 'ACTIVE' });
    // As every refusal after the code check: the code is used up only by a completion that succeeds,
    // so the same code is refused the same way again, and still nothing changes.
    const again = await complete(me.token, old.phone, code);
    expect([again.status, again.body?.errorCode]).toEqual([409, 'ACCOUNT_LINK_REQUIRES_RECOVERY']);
    expect(await snapshot(me, old)).toEqual(before);
  });

  it('merges an old account whose e-mail is not verified, as before', async () => {
    const old = await oldTraveller(false);
    const me = await idpTraveller();

    const response = await complete(me.token, old.phone, await codeFor(old.phone));

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      passengerId: old.passengerId,
      merged: true,
      user: { phone: old.phone },
    });
    const [retired] = await app.db.query('select status, email, phone from users where id = $1', [
      old.userId,
    ]);
    expect(retired).toEqual({ status: 'DISABLED', email: null, phone: null });
    const [booking] = await app.db.query('select owner_user_id from bookings where id = $1', [old.bookingId]);
    expect(booking).toEqual({ owner_user_id: me.userId });
    const [profile] = await app.db.query('select email from passengers where id = $1', [old.passengerId]);
    expect(profile).toEqual({ email: old.email });
  });
});
