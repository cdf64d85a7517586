import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import { journeyTripOf } from '../../support/journey-rows.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * README: "Every traveller surface counts a booking theirs by this one rule (domain/booking-ownership.ts)"
 * (an imported booking keyed only by the traveller's canonical passenger profile is theirs), and support
 * "opens one on someone's behalf (a booking brings its company and traveller ...)": the traveller an
 * imported booking brings is the account of its passenger profile.
 */
describe('a support ticket about an imported (legacy) booking', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let traveller: SignedInTraveller;
  let bookingId: string;
  let support: { admin: { id: string }; browser: AdminBrowser };

  beforeAll(async () => {
    traveller = await app.signIn();
    const corridor = await createCorridor(app.db);
    bookingId = await legacyPassengerBooking(app.db, {
      trip: journeyTripOf(corridor),
      passengerId: traveller.passengerId,
    });
    support = await signedInAdmin(app, { role: 'SUPPORT' });
  });

  it("the booking is the traveller's (GET /bookings/{id})", async () => {
    const detail = await app.request(`/api/bookings/${bookingId}`, { token: traveller.token });
    expect(detail.status, detail.text).toBe(200);
  });

  it('support opening a ticket via the booking brings the traveller whose booking it is, and the traveller sees it', async () => {
    const opened = await support.browser.send('POST', '/tickets', {
      subject: 'Called in about an old booking',
      message: 'By phone',
      bookingId,
    });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data.ticket.traveller).toMatchObject({ id: traveller.userId });
    const mine = await app.request('/api/support-tickets', { token: traveller.token });
    expect(mine.status, mine.text).toBe(200);
    expect(JSON.stringify(mine.body.data)).toContain(opened.body.data.ticket.id);
  });

  it('support naming the booking and its traveller is not a mismatch', async () => {
    const opened = await support.browser.send('POST', '/tickets', {
      subject: 'Called in about an old booking',
      message: 'By phone',
      bookingId,
      travellerId: traveller.userId,
    });
    expect([opened.status, opened.body?.errorCode], opened.text).toEqual([201, undefined]);
  });
});
