import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { createLogger } from '../../../config/logger.js';
import { signedInAdmin } from '../admin/helpers.js';
import {
  booked,
  minutesFromNow,
  modifyBooking,
  moveTo,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { useFakeIdp } from '../../support/fakes/jwks.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';

/** Analytics after the travellers' own flows: a booking moved to another route, a phone added later. */
describe('analytics after booking changes and account changes', () => {
  const { idp, config } = useFakeIdp({
    COOKIE_SECURE: false,
    OTP_PRELAUNCH: true,
    IDP_RATE_LIMIT_PER_IP: 100_000,
    ANALYTICS_RATE_LIMIT_PER_MINUTE: 0,
  });
  const app = useTestApp(config);
  // Bookings made now, read back as today's (Damascus): the file runs inside the one day.
  let today: string;
  beforeAll(async () => {
    today = await dayWithRoom();
  }, dayWithRoomTimeout());
  const get = (cookie: string, path: string) =>
    app.request(`/dashboard/api${path}`, { headers: { Cookie: cookie } });

  it('lists a booking moved to a trip of another route on its new route only, at its new price', async () => {
    const traveller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, traveller, { seats: ['1'] });
    const pricier = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60), { price: 14_000 });
    expect(pricier.routeId).not.toBe(trip.routeId);
    const moved = await modifyBooking(app, traveller, booking.id, moveTo(pricier.tripId, ['1']));
    expect(moved.status, moved.text).toBe(200);

    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const snapshot = (await get(owner.cookie, '/analytics?period=daily')).body.data;
    expect(snapshot.indicators).toMatchObject({ bookings: { current: 1 }, revenue: { current: 14_000 } });
    const advanced = (await get(owner.cookie, '/analytics/advanced?days=7')).body.data;
    const routes = (rows: { routeId: string; bookings: number; revenue: number; rank: number }[]) =>
      rows.map(({ routeId, bookings, revenue, rank }) => ({ routeId, bookings, revenue, rank }));
    // "Routes that sold or ran anything in the period": the old route's +1 and -1 net to nothing
    // (before: it was listed with 0 bookings and rank 2).
    const only = [{ routeId: pricier.routeId, bookings: 1, revenue: 14_000, rank: 1 }];
    expect(routes(snapshot.routePerformance.routes)).toEqual(only);
    expect(routes(advanced.routeRanking)).toEqual(only);
  });

  it('counts a traveller who added a phone between two bookings once, on the dashboard and the platform', async () => {
    // Signed in with the identity provider: no phone yet, so no passenger profile.
    const idToken = await idp.mint({ audience: idp.mobileClientId });
    const signIn = await app.request('/api/auth/customer/idp/mobile', { method: 'POST', json: { idToken } });
    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.body.data.needsPhone).toBe(true);
    const caller: Caller = {
      userId: signIn.body.data.user.id,
      headers: { Authorization: `Bearer ${signIn.body.data.accessToken}` },
      channel: 'CUSTOMER_MOBILE',
    };
    const trip = await bookableTrip(app.db);
    const first = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['1'] });

    const phone = `+963900${String(randomInt(100_000, 1_000_000))}`;
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    const completed = await app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      token: signIn.body.data.accessToken,
      json: { phone, code: sent.localCode, method: 'sms' },
    });
    expect(completed.status, completed.text).toBe(200);
    await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: ['2'] });
    // The first booking was made without a profile and keeps none; the analytics still name one traveller.
    const [earlier] = await app.db.query<{ passenger_id: string | null }>(
      'select passenger_id from bookings where id = $1',
      [first.id],
    );
    expect(earlier!.passenger_id).toBeNull();

    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const advanced = await get(owner.cookie, '/analytics/advanced?days=7');
    expect(advanced.status, advanced.text).toBe(200);
    const { browser } = await signedInAdmin(app, { role: 'ANALYST' });
    const platform = await browser.get(`/analytics?companyId=${trip.companyId}&from=${today}&to=${today}`);
    expect(platform.status, platform.text).toBe(200);
    // Before: 2 current customers, 0 repeat customers, 2 active travellers.
    expect({
      currentCustomers: advanced.body.data.retention.currentCustomers,
      repeatCustomers: advanced.body.data.retention.repeatCustomers,
      activeTravellers: platform.body.data.totals.activeTravellers,
    }).toEqual({ currentCustomers: 1, repeatCustomers: 1, activeTravellers: 1 });
  });
});
