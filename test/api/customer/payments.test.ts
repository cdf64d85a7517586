import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commitCashCollection,
  PaymentRefusal,
  recordCashCollection,
  type CashCollectionInput,
} from '../../../db/writes/payments.js';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  createJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';
import { dispatch } from '../../support/operations.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';
import { createStaffUser } from '../../support/staff.js';

describe('customer payments (cash only)', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let traveller: SignedInTraveller;

  beforeAll(async () => {
    const corridor = await createCorridor(app.db);
    trip = journeyTripOf(corridor);
    traveller = await app.signIn();
  });

  /** A confirmed booking of `owner` for `travellers` (10 000 SYP each), unpaid. */
  async function confirmedBooking(owner: SignedInTraveller, travellers = ['Rami Haddad']): Promise<string> {
    return (await confirmedJourneyRows(app.db, { ownerUserId: owner.userId, trip, travellers })).bookingId;
  }

  const create = (json: unknown, caller: SignedInTraveller = traveller) =>
    app.request('/api/payments/create', { method: 'POST', json, headers: caller.writeHeaders });

  async function operationsOf(bookingId: string) {
    return app.db.query<{
      id: string;
      status: string;
      source: string;
      amount: string;
      user_id: string | null;
    }>(
      `select id, status, source, amount, user_id from payment_operations where booking_id = $1 order by created_at`,
      [bookingId],
    );
  }

  async function paymentStatusOf(bookingId: string): Promise<string> {
    const [row] = await app.db.query<{ payment_status: string }>(
      `select payment_status from bookings where id = $1`,
      [bookingId],
    );
    return row!.payment_status;
  }

  describe('POST /payments/create', () => {
    it('opens a pending cash payment of the booking total, to be paid at the office or to the driver', async () => {
      const bookingId = await confirmedBooking(traveller, ['Rami Haddad', 'Lina Haddad']);
      const response = await create({ booking_id: bookingId, method: 'CASH' });
      expect(response.status).toBe(201);
      const payment = response.body.data.payment;
      expect(response.body.success).toBe(true);
      expect(payment).toMatchObject({
        booking_id: bookingId,
        method: 'CASH',
        status: 'PENDING',
        amount: 20_000,
        currency: 'SYP',
        company: { id: trip.companyId },
      });
      expect(payment.instructions.en).toMatch(/company office.*driver before boarding/);
      expect(payment.instructions.ar.length).toBeGreaterThan(10);
      expect(response.headers.get('cache-control')).toBe('private, no-store');

      const operations = await operationsOf(bookingId);
      expect(operations).toEqual([
        {
          id: payment.id,
          status: 'PENDING',
          source: 'transaction',
          amount: '20000',
          user_id: traveller.userId,
        },
      ]);
      expect(await paymentStatusOf(bookingId)).toBe('UNPAID');
    });

    it('asking again returns the same pending payment (200), never a second one', async () => {
      const bookingId = await confirmedBooking(traveller);
      const first = await create({ booking_id: bookingId, method: 'CASH' });
      const again = await create({ booking_id: bookingId, method: 'CASH' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      expect(again.body.data.payment.id).toBe(first.body.data.payment.id);
      expect(await operationsOf(bookingId)).toHaveLength(1);
    });

    it('20 concurrent cash requests for one booking make exactly one payment', async () => {
      const mobile = await app.signIn();
      const bookingId = await confirmedBooking(mobile);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          app.request('/api/payments/create', {
            method: 'POST',
            token: mobile.token,
            json: { booking_id: bookingId, method: 'CASH' },
          }),
        ),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([
        ...Array<number>(19).fill(200),
        201,
      ]);
      const ids = new Set(responses.map((response) => response.body.data.payment.id));
      expect(ids.size).toBe(1);
      const operations = await operationsOf(bookingId);
      expect(operations.map((operation) => operation.id)).toEqual([...ids]);
    });

    it.each(['SHAMCASH', 'CARD'])(
      '%s → 409 ONLINE_PAYMENTS_DEVELOPMENT_ONLY listing CASH as available, nothing written',
      async (method) => {
        const bookingId = await confirmedBooking(traveller);
        const response = await create({ booking_id: bookingId, method });
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({
          success: false,
          errorCode: 'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
          available_methods: ['CASH'],
          details: { available_methods: ['CASH'] },
        });
        expect(await operationsOf(bookingId)).toEqual([]);
      },
    );

    it.each([
      ['an unknown method', { method: 'BITCOIN' }],
      ['a method in lower case', { method: 'cash' }],
      ['no method', { method: undefined }],
      ['a booking id that is not a UUID', { booking_id: 'BK-123' }],
      ['an extra field', { amount: 1 }],
    ])('%s → 400 VALIDATION_FAILED, nothing written', async (_, change) => {
      const bookingId = await confirmedBooking(traveller);
      const response = await create({ booking_id: bookingId, method: 'CASH', ...change });
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
      expect(await operationsOf(bookingId)).toEqual([]);
    });

    it("another traveller's booking → 404 BOOKING_NOT_FOUND, nothing written", async () => {
      const owner = await app.signIn();
      const bookingId = await confirmedBooking(owner);
      const response = await create({ booking_id: bookingId, method: 'CASH' });
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('BOOKING_NOT_FOUND');
      expect(await operationsOf(bookingId)).toEqual([]);

      const unknown = await create({ booking_id: randomUUID(), method: 'CASH' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.errorCode).toBe('BOOKING_NOT_FOUND');
    });

    it('an imported booking made for the traveller’s passenger profile: the traveller announces its cash, a stranger gets 404', async () => {
      const bookingId = await legacyPassengerBooking(app.db, { trip, passengerId: traveller.passengerId });
      const stranger = await app.signIn();
      const refused = await create({ booking_id: bookingId, method: 'CASH' }, stranger);
      expect([refused.status, refused.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
      expect(await operationsOf(bookingId)).toEqual([]);

      const response = await create({ booking_id: bookingId, method: 'CASH' });
      expect([response.status, response.body.errorCode], response.text).toEqual([201, undefined]);
      expect(response.body.data.payment).toMatchObject({
        booking_id: bookingId,
        status: 'PENDING',
        amount: 10_000,
      });
      expect(await operationsOf(bookingId)).toMatchObject([{ status: 'PENDING', source: 'transaction' }]);
    });

    it('a cancelled booking or one awaiting the company decision → 409 BOOKING_NOT_PAYABLE', async () => {
      for (const bookingStatus of ['CANCELLED', 'PENDING_CONFIRMATION'] as const) {
        const { bookingId } = await createJourneyRows(app.db, {
          ownerUserId: traveller.userId,
          trip,
          travellers: ['Nour Khalil'],
          bookingStatus,
        });
        const response = await create({ booking_id: bookingId, method: 'CASH' });
        expect(response.status).toBe(409);
        expect(response.body.errorCode).toBe('BOOKING_NOT_PAYABLE');
        expect(await operationsOf(bookingId)).toEqual([]);
      }
    });

    it('a paid booking → 409 BOOKING_ALREADY_PAID, nothing written', async () => {
      const bookingId = await confirmedBooking(traveller);
      await collectCash(app.db, bookingId, { source: 'office' });
      const response = await create({ booking_id: bookingId, method: 'CASH' });
      expect(response.status).toBe(409);
      expect(response.body.errorCode).toBe('BOOKING_ALREADY_PAID');
      expect(await operationsOf(bookingId)).toHaveLength(1);
    });

    it('a booking that costs nothing (a free-trip voucher took the fare) → 409 NOTHING_TO_COLLECT, nothing written', async () => {
      const bookingId = await confirmedBooking(traveller);
      await app.db.query(`update bookings set total_price = 0 where id = $1`, [bookingId]);
      const response = await create({ booking_id: bookingId, method: 'CASH' });
      expect([response.status, response.body.errorCode], response.text).toEqual([409, 'NOTHING_TO_COLLECT']);
      expect(await operationsOf(bookingId)).toEqual([]);
      expect(await paymentStatusOf(bookingId)).toBe('UNPAID');
      // The online methods are not taken at all, whatever the booking costs: nothing written either.
      for (const method of ['SHAMCASH', 'CARD']) {
        const online = await create({ booking_id: bookingId, method });
        expect([online.status, online.body.errorCode]).toEqual([409, 'ONLINE_PAYMENTS_DEVELOPMENT_ONLY']);
      }
      expect(await operationsOf(bookingId)).toEqual([]);
    });

    it('a web call without X-CSRF-Token → 403 CSRF_TOKEN_INVALID; without a session → 401; nothing written', async () => {
      const bookingId = await confirmedBooking(traveller);
      const noCsrf = await app.request('/api/payments/create', {
        method: 'POST',
        json: { booking_id: bookingId, method: 'CASH' },
        headers: { Cookie: traveller.cookie },
      });
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      const wrongCsrf = await app.request('/api/payments/create', {
        method: 'POST',
        json: { booking_id: bookingId, method: 'CASH' },
        headers: { Cookie: traveller.cookie, 'X-CSRF-Token': randomUUID() },
      });
      expect(wrongCsrf.status).toBe(403);
      const anonymous = await app.request('/api/payments/create', {
        method: 'POST',
        json: { booking_id: bookingId, method: 'CASH' },
      });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.errorCode).toBe('AUTH_REQUIRED');
      expect(await operationsOf(bookingId)).toEqual([]);
    });
  });

  describe('GET /payments', () => {
    it("lists only the caller's payments, newest first, with booking code, company and collection time", async () => {
      const payer = await app.signIn();
      const first = await confirmedBooking(payer);
      const second = await confirmedBooking(payer, ['Sami Nasser', 'Hala Nasser']);
      const third = await confirmedBooking(payer);
      await announceCashPayment(app.db, first, payer.userId);
      await announceCashPayment(app.db, second, payer.userId);
      const collectedAt = new Date('2026-11-20T09:30:00.000Z');
      await collectCash(app.db, third, { source: 'driver', collectedAt });
      const stranger = await app.signIn();
      await announceCashPayment(app.db, await confirmedBooking(stranger), stranger.userId);

      const response = await app.request('/api/payments', { headers: { Cookie: payer.cookie } });
      expect(response.status).toBe(200);
      expect(response.body.pagination).toEqual({ limit: 20, offset: 0, total: 3 });
      const [newest, middle, oldest] = response.body.data;
      expect(newest).toMatchObject({
        booking_id: third,
        method: 'CASH',
        source: 'driver',
        status: 'COMPLETED',
        amount: 10_000,
        collected_at: collectedAt.toISOString(),
        company: { id: trip.companyId },
      });
      expect(newest.booking_code).toMatch(/^BK-/);
      expect(newest.company.name_en).toEqual(expect.any(String));
      expect(middle).toMatchObject({
        booking_id: second,
        status: 'PENDING',
        amount: 20_000,
        collected_at: null,
      });
      expect(oldest).toMatchObject({ booking_id: first, status: 'PENDING', source: 'transaction' });

      const page = await app.request('/api/payments?limit=1&offset=1', { token: payer.token });
      expect(page.body.pagination).toEqual({ limit: 1, offset: 1, total: 3 });
      expect(page.body.data.map((payment: { booking_id: string }) => payment.booking_id)).toEqual([second]);
    });

    it('lists the collection of an imported booking made for the caller’s passenger profile, to them only', async () => {
      const payer = await app.signIn();
      const bookingId = await legacyPassengerBooking(app.db, { trip, passengerId: payer.passengerId });
      const { paymentId } = await collectCash(app.db, bookingId, { source: 'office' });

      const response = await app.request('/api/payments', { token: payer.token });
      expect(response.status, response.text).toBe(200);
      expect(response.body.pagination).toMatchObject({ total: 1 });
      expect(response.body.data).toMatchObject([
        { id: paymentId, booking_id: bookingId, source: 'office', status: 'COMPLETED' },
      ]);
      const stranger = await app.signIn();
      const theirs = await app.request('/api/payments', { token: stranger.token });
      expect(theirs.body.data).toEqual([]);
    });

    it('answers REFUND_DUE, a status its document lists, for cash collected on a trip the company cancelled', async () => {
      const payer = await app.signIn();
      const corridor = await createCorridor(app.db);
      const cancelledTrip = journeyTripOf(corridor);
      const { bookingId } = await confirmedJourneyRows(app.db, {
        ownerUserId: payer.userId,
        trip: cancelledTrip,
        travellers: ['Rami Haddad'],
      });
      await collectCash(app.db, bookingId);
      const dispatcher = await staffSession(app.db, app.config, corridor.company.id, 'DISPATCHER');
      const cancelled = await dispatch(app, dispatcher, cancelledTrip.id, {
        action: 'CANCEL',
        reason: 'Bus breakdown',
      });
      expect(cancelled.status, cancelled.text).toBe(200);

      const listed = await app.request('/api/payments', { token: payer.token });
      expect(listed.body.data.map((payment: { status: string }) => payment.status)).toEqual(['REFUND_DUE']);
      const document = (await app.request('/api/openapi.json')).body;
      expect(document.components.schemas.TravellerPayment.properties.status.enum).toContain('REFUND_DUE');
    });

    it('needs a session and valid paging', async () => {
      expect((await app.request('/api/payments')).status).toBe(401);
      const bad = await app.request('/api/payments?limit=0', { token: traveller.token });
      expect(bad.status).toBe(400);
      expect(bad.body.errorCode).toBe('VALIDATION_FAILED');
    });
  });

  describe('recordCashCollection', () => {
    const refusalOf = async (input: CashCollectionInput) => {
      const error = await commitCashCollection(app.db, input).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PaymentRefusal);
      return (error as PaymentRefusal).code;
    };

    it("completes the traveller's pending payment: collected_at, deciding staff user, booking PAID", async () => {
      const bookingId = await confirmedBooking(traveller);
      const { paymentId } = await announceCashPayment(app.db, bookingId, traveller.userId);
      const staff = await createStaffUser(app.db);
      const collection = await commitCashCollection(app.db, { paymentId, staffUserId: staff.userId });
      expect(collection).toMatchObject({ paymentId, bookingId, source: 'transaction', amount: 10_000 });

      const [operation] = await app.db.query<Record<string, unknown>>(
        `select status, collected_at, decided_by, decided_at from payment_operations where id = $1`,
        [paymentId],
      );
      expect(operation).toMatchObject({ status: 'COMPLETED', decided_by: staff.userId });
      expect(new Date(operation!.collected_at as string)).toEqual(collection.collectedAt);
      expect(operation!.decided_at).not.toBeNull();
      expect(await paymentStatusOf(bookingId)).toBe('PAID');
    });

    it('by booking: completes its pending payment, or records a completed one with the given source', async () => {
      const announced = await confirmedBooking(traveller);
      const { paymentId } = await announceCashPayment(app.db, announced, traveller.userId);
      expect((await collectCash(app.db, announced, { source: 'driver' })).paymentId).toBe(paymentId);
      expect(await operationsOf(announced)).toMatchObject([{ id: paymentId, status: 'COMPLETED' }]);

      const unannounced = await confirmedBooking(traveller);
      const collection = await collectCash(app.db, unannounced, { source: 'driver' });
      expect(await operationsOf(unannounced)).toEqual([
        {
          id: collection.paymentId,
          status: 'COMPLETED',
          source: 'driver',
          amount: '10000',
          user_id: traveller.userId,
        },
      ]);
      expect(await paymentStatusOf(unannounced)).toBe('PAID');
    });

    it("runs in the caller's transaction: a rollback leaves the payment pending and the booking unpaid", async () => {
      const bookingId = await confirmedBooking(traveller);
      const { paymentId } = await announceCashPayment(app.db, bookingId, traveller.userId);
      const failure = new Error('the surrounding work failed');
      await expect(
        app.db.transaction(async (client) => {
          await recordCashCollection(client, { paymentId });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await operationsOf(bookingId)).toMatchObject([{ id: paymentId, status: 'PENDING' }]);
      expect(await paymentStatusOf(bookingId)).toBe('UNPAID');
    });

    it('refuses what cannot be collected, writing nothing', async () => {
      expect(await refusalOf({ paymentId: randomUUID() })).toBe('PAYMENT_NOT_FOUND');
      expect(await refusalOf({ bookingId: randomUUID(), source: 'office' })).toBe('BOOKING_NOT_FOUND');

      const paid = await confirmedBooking(traveller);
      await collectCash(app.db, paid);
      expect(await refusalOf({ bookingId: paid, source: 'driver' })).toBe('BOOKING_ALREADY_PAID');
      expect(await operationsOf(paid)).toHaveLength(1);

      const { bookingId: cancelled } = await createJourneyRows(app.db, {
        ownerUserId: traveller.userId,
        trip,
        travellers: ['Nour Khalil'],
        bookingStatus: 'CANCELLED',
      });
      expect(await refusalOf({ bookingId: cancelled, source: 'office' })).toBe('BOOKING_NOT_PAYABLE');
      expect(await operationsOf(cancelled)).toEqual([]);

      const withdrawn = await confirmedBooking(traveller);
      const { paymentId } = await announceCashPayment(app.db, withdrawn, traveller.userId);
      await app.db.query(`update payment_operations set status = 'CANCELLED' where id = $1`, [paymentId]);
      expect(await refusalOf({ paymentId })).toBe('PAYMENT_NOT_PENDING');
      expect(await paymentStatusOf(withdrawn)).toBe('UNPAID');
    });

    it('refuses to collect a booking that costs nothing, by booking or by its pending line, writing nothing', async () => {
      const free = await confirmedBooking(traveller);
      await app.db.query(`update bookings set total_price = 0 where id = $1`, [free]);
      expect(await refusalOf({ bookingId: free, source: 'office' })).toBe('NOTHING_TO_COLLECT');
      expect(await operationsOf(free)).toEqual([]);
      expect(await paymentStatusOf(free)).toBe('UNPAID');

      // A 0 SYP line announced before the rule (the office's verify of it is this collection).
      const announced = await confirmedBooking(traveller);
      await app.db.query(`update bookings set total_price = 0 where id = $1`, [announced]);
      const [line] = await app.db.query<{ id: string }>(
        `insert into payment_operations (company_id, booking_id, user_id, method, provider, source, amount)
         values ($1, $2, $3, 'CASH', 'cash', 'transaction', 0) returning id`,
        [trip.companyId, announced, traveller.userId],
      );
      expect(await refusalOf({ paymentId: line!.id })).toBe('NOTHING_TO_COLLECT');
      expect(await operationsOf(announced)).toMatchObject([{ id: line!.id, status: 'PENDING' }]);
      expect(await paymentStatusOf(announced)).toBe('UNPAID');
    });

    it('ten concurrent collections of one booking: exactly one succeeds', async () => {
      const bookingId = await confirmedBooking(traveller);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => collectCash(app.db, bookingId, { source: 'office' })),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected')
          expect((result.reason as PaymentRefusal).code).toBe('BOOKING_ALREADY_PAID');
      }
      expect(await operationsOf(bookingId)).toHaveLength(1);
    });

    it('the ledger holds at most one pending or completed operation record per booking', async () => {
      const bookingId = await confirmedBooking(traveller);
      await announceCashPayment(app.db, bookingId, traveller.userId);
      await expect(
        app.db.query(
          `insert into payment_operations (company_id, booking_id, method, source, amount)
           values ($1, $2, 'CASH', 'transaction', 10000)`,
          [trip.companyId, bookingId],
        ),
      ).rejects.toMatchObject({ code: '23505' });
    });
  });
});
