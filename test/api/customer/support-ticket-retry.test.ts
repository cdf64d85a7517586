import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';

/**
 * A support ticket whose answer was lost, sent again (the traveller pressing again, the app
 * retrying): with the same Idempotency-Key it opens one ticket and answers that ticket again,
 * using up one turn of the hourly limit; the key used for another ticket is refused with nothing
 * written.
 */
describe('POST /api/support-tickets with an Idempotency-Key', () => {
  const app = useTestApp();

  interface Asker {
    traveller: SignedInTraveller;
    bookingId: string;
  }

  /** A traveller with a confirmed booking of their own. */
  async function asker(): Promise<Asker> {
    const traveller = await app.signIn();
    const corridor = await createCorridor(app.db);
    const { bookingId } = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: journeyTripOf(corridor),
      travellers: ['Rami Haddad'],
    });
    return { traveller, bookingId };
  }

  const open = (who: Asker, body: Record<string, unknown>, key?: string) =>
    app.request('/api/support-tickets', {
      method: 'POST',
      headers: { ...who.traveller.writeHeaders, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      json: body,
    });

  const question = (who: Asker) => ({
    bookingId: who.bookingId,
    subject: 'Refund question',
    message: 'Hello, my bus was late',
  });

  /** The traveller's tickets with their messages, and their turns of the hourly limit. */
  const snapshot = async (who: Asker) => ({
    tickets: await app.db.query(
      `select t.id, t.subject, t.status, t.updated_at,
              (select array_agg(m.body order by m.created_at, m.id) from support_ticket_messages m
                where m.ticket_id = t.id) as messages
         from support_tickets t where t.traveller_user_id = $1 order by t.id`,
      [who.traveller.userId],
    ),
    limit: await app.db.query(`select key, points from rate_limits where key like $1`, [
      `%${who.traveller.userId}%`,
    ]),
  });

  let me: Asker;
  beforeAll(async () => {
    me = await asker();
  });

  it('a retry with the same key answers the ticket the first call opened; nothing more is written', async () => {
    const who = await asker();
    const key = `ticket-${randomUUID()}`;
    const first = await open(who, question(who), key);
    expect(first.status, first.text).toBe(201);
    const afterFirst = await snapshot(who);

    const again = await open(who, question(who), key);
    expect(again.status, again.text).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await snapshot(who)).toEqual(afterFirst);
    expect(afterFirst.tickets).toHaveLength(1);

    // A new key is a new ticket.
    const next = await open(who, question(who), `ticket-${randomUUID()}`);
    expect(next.status, next.text).toBe(201);
    expect(next.body.data.id).not.toBe(first.body.data.id);
    expect((await snapshot(who)).tickets).toHaveLength(2);
  });

  it('two calls with the same key at once open one ticket, and both answer it', async () => {
    const who = await asker();
    const key = `ticket-${randomUUID()}`;
    const answers = await Promise.all([open(who, question(who), key), open(who, question(who), key)]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    expect(answers[1].body.data.id).toBe(answers[0].body.data.id);
    expect((await snapshot(who)).tickets).toHaveLength(1);
  });

  it('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const key = `ticket-${randomUUID()}`;
    expect((await open(me, question(me), key)).status).toBe(201);
    const before = await snapshot(me);

    const otherSubject = await open(me, { ...question(me), subject: 'Lost luggage' }, key);
    const otherMessage = await open(me, { ...question(me), message: 'My bag stayed on the bus' }, key);
    for (const refused of [otherSubject, otherMessage]) {
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    }
    expect(await snapshot(me)).toEqual(before);
  });

  it('a refused ticket keeps nothing under its key: the same key then opens one', async () => {
    const key = `ticket-${randomUUID()}`;
    const other = await asker();
    const before = await snapshot(me);
    const refused = await open(me, { ...question(me), bookingId: other.bookingId }, key);
    expect([refused.status, refused.body.errorCode]).toEqual([404, 'BOOKING_NOT_FOUND']);
    expect((await snapshot(me)).tickets).toEqual(before.tickets);

    const opened = await open(me, question(me), key);
    expect(opened.status, opened.text).toBe(201);
  });

  it('keys are kept per traveller: another traveller’s same key opens their own ticket', async () => {
    const key = `ticket-${randomUUID()}`;
    const other = await asker();
    const mine = await open(me, question(me), key);
    const theirs = await open(other, question(other), key);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.data.booking.id).toBe(other.bookingId);
    expect((await snapshot(other)).tickets).toHaveLength(1);
  });

  it('a malformed key is 400 VALIDATION_FAILED and writes nothing', async () => {
    const before = await snapshot(me);
    for (const key of ['short', 'with spaces in it', 'clé-idempotence', 'k'.repeat(129), '']) {
      const refused = await open(me, question(me), key);
      expect([refused.status, refused.body.errorCode], JSON.stringify(key)).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(refused.body.details.issues[0].path).toBe('headers.Idempotency-Key');
    }
    expect(await snapshot(me)).toEqual(before);
  });

  it('without the header every call opens a ticket, as before', async () => {
    const who = await asker();
    await open(who, question(who));
    await open(who, question(who));
    expect((await snapshot(who)).tickets).toHaveLength(2);
  });
});
