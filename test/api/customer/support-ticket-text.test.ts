import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller, type TestResponse } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { NOT_ONE_LINE_TEXTS, PROSE, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * What a traveller writes on their support ticket (/api/support-tickets), support reads: the subject
 * is one line and the messages prose, and none may hold a control or bidirectional-override
 * character, which would make one text read as another (as what support writes, api/admin/tickets).
 * A refusal is 400 VALIDATION_FAILED naming the field, and changes nothing: no ticket, no message,
 * no turn of the traveller's hourly limit.
 */
describe('a traveller’s support ticket: text support reads', () => {
  const app = useTestApp();
  let traveller: SignedInTraveller;
  let bookingId: string;

  beforeAll(async () => {
    traveller = await app.signIn();
    const corridor = await createCorridor(app.db);
    ({ bookingId } = await confirmedJourneyRows(app.db, {
      ownerUserId: traveller.userId,
      trip: journeyTripOf(corridor),
      travellers: ['Rami Haddad'],
    }));
  });

  const open = (fields: Record<string, string>) =>
    app.request('/api/support-tickets', {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: { bookingId, subject: 'Refund question', message: 'Hello', ...fields },
    });
  const write = (ticketId: string, message: string) =>
    app.request(`/api/support-tickets/${ticketId}/messages`, {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: { message },
    });

  /** The traveller's tickets with their messages, and their turns of the hourly limit. */
  const snapshot = async () => ({
    tickets: await app.db.query(
      `select t.id, t.subject, t.status, t.updated_at,
              (select array_agg(m.body order by m.created_at, m.id) from support_ticket_messages m
                where m.ticket_id = t.id) as messages
         from support_tickets t where t.traveller_user_id = $1 order by t.id`,
      [traveller.userId],
    ),
    limit: await app.db.query(`select key, points from rate_limits where key like $1`, [
      `%${traveller.userId}%`,
    ]),
  });

  /** Sends each text, expects each refused as a bad `field`, and everything as it was. */
  async function expectEachRefused(
    texts: Record<string, string>,
    field: string,
    send: (text: string) => Promise<TestResponse>,
  ) {
    const before = await snapshot();
    for (const [what, text] of Object.entries(texts)) {
      const refused = await send(text);
      expect([refused.status, refused.body.errorCode], `${field}: ${what}`).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(refused.body.details.issues, `${field}: ${what}`).toContainEqual(
        expect.objectContaining({ path: `body.${field}` }),
      );
    }
    expect(await snapshot()).toEqual(before);
  }

  it('opening: a subject (one line) or a first message (prose) with such a character is refused', async () => {
    const subjects = { ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS };
    await expectEachRefused(subjects, 'subject', (subject) => open({ subject }));
    await expectEachRefused(UNPRINTABLE_TEXTS, 'message', (message) => open({ message }));
  });

  it('writing: a message with such a character is refused; prose keeps its line breaks and tabs', async () => {
    const opened = await open({ message: PROSE });
    expect(opened.status, opened.text).toBe(201);
    const ticketId: string = opened.body.data.id;
    await expectEachRefused(UNPRINTABLE_TEXTS, 'message', (message) => write(ticketId, message));

    const written = await write(ticketId, `  ${PROSE}\n`);
    expect(written.status, written.text).toBe(200);
    const read = await app.request(`/api/support-tickets/${ticketId}`, {
      headers: { Cookie: traveller.cookie },
    });
    expect(read.body.data).toMatchObject({ subject: 'Refund question', status: 'OPEN' });
    expect(read.body.data.messages.map((message: { body: string }) => message.body)).toEqual([PROSE, PROSE]);
  });
});
