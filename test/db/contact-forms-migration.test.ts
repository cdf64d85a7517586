import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migratedEmail } from '../../db/migrations/Migration20261210000000_contact_forms.js';
import { migrationsList } from '../../db/orm.js';
import { readEmail } from '../../domain/email-address.js';
import { useFakeSmtp } from '../support/fakes/smtp.js';
import { useTestApp } from '../support/harness.js';
import { staffSession } from '../support/journey-rows.js';
import { bookSeats, dispatchView, operationsWorld } from '../support/operations.js';
import { collectCash } from '../support/payments.js';
import { usePrivateDatabase } from '../support/private-database.js';

/**
 * README ("Bookings and seat locks", "Travellers"): a passenger's or journey traveller's phone is kept
 * in the E.164 form sign-in stores and every e-mail address in its ASCII form; rows stored before were
 * rewritten so by a migration. Rows as the release before left them (the number as typed, the identity
 * provider's address as it spelt it) are found by the ledger search, the manifest and password recovery
 * once the migration has run, and not before it.
 */
const MIGRATION = 'Migration20261210000000_contact_forms';
const names = migrationsList.map((migration) => migration.name);
/** The migration before this one: the database as the release before left it. */
const BEFORE = names[names.indexOf(MIGRATION) - 1]!;

describe(`${MIGRATION}: a phone stored with the Syrian trunk 0 after +963`, () => {
  const database = usePrivateDatabase('contact_phones');
  const app = useTestApp({ DATABASE_URL: database.url });

  it('is found by the ledger search by that number and named in its E.164 form by the manifest', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const typed = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const unreadable = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    for (const booked of [typed, unreadable]) await collectCash(app.db, booked.bookingId);
    // As POST /bookings stored them before: the number as typed, on the booking and on its ticket.
    // `+96300…` is no number sign-in reads (a Syrian number never starts with 0 after the trunk 0).
    const asTyped: [string, string][] = [
      [typed.bookingId, '+9630944123456'],
      [unreadable.bookingId, '+96300944123456'],
    ];
    for (const [bookingId, phone] of asTyped) {
      await app.db.query(`update bookings set passenger_phone = $2 where id = $1`, [bookingId, phone]);
      await app.db.query(
        `update journey_tickets k set traveller_phone = $2 from bookings b where b.id = $1 and k.journey_id = b.journey_id`,
        [bookingId, phone],
      );
    }
    const accountant = await staffSession(app.db, app.config, world.companyId, 'ACCOUNTANT');
    const seen = async () => {
      const found: Record<string, string[]> = {};
      for (const search of ['+963944123456', '0944 123 456', '00963944123456']) {
        const answer = await app.request(`/dashboard/api/payments?search=${encodeURIComponent(search)}`, {
          headers: { Cookie: accountant.cookie },
        });
        expect(answer.status, answer.text).toBe(200);
        found[search] = answer.body.data.map((line: { booking: { id: string } }) => line.booking.id);
      }
      const room = await dispatchView(app, world.dispatcher, world.trip.tripId);
      expect(room.status, room.text).toBe(200);
      const phones = Object.fromEntries(
        room.body.data.manifest.map((item: { booking_id: string; phone: string }) => [
          item.booking_id,
          item.phone,
        ]),
      );
      return { found, manifest: [phones[typed.bookingId], phones[unreadable.bookingId]] };
    };

    await app.db.orm.migrator.down({ to: BEFORE });
    expect(await seen(), 'before the migration').toEqual({
      found: { '+963944123456': [], '0944 123 456': [], '00963944123456': [] },
      manifest: ['+9630944123456', '+96300944123456'],
    });

    await app.db.orm.migrator.up();
    expect(await seen(), 'after the migration').toEqual({
      found: {
        '+963944123456': [typed.bookingId],
        '0944 123 456': [typed.bookingId],
        '00963944123456': [typed.bookingId],
      },
      manifest: ['+963944123456', '+96300944123456'],
    });
    const stored = await app.db.query(
      `select b.passenger_phone, k.traveller_phone from bookings b join journey_tickets k on k.journey_id = b.journey_id
        where b.id = any($1::uuid[]) order by b.id = $2 desc`,
      [[typed.bookingId, unreadable.bookingId], typed.bookingId],
    );
    expect(stored).toEqual([
      { passenger_phone: '+963944123456', traveller_phone: '+963944123456' },
      { passenger_phone: '+96300944123456', traveller_phone: '+96300944123456' },
    ]);
  });
});

describe(`${MIGRATION}: an identity-provider account whose address has an Arabic domain`, () => {
  const database = usePrivateDatabase('contact_emails');
  const mail = useFakeSmtp({ DATABASE_URL: database.url, PASSWORD_RECOVERY_MAX_PER_IP: 1000 });
  const app = useTestApp(mail.config);

  /** An account the provider made before: the address as it spelt it, verified, linked to a subject. */
  async function providerAccount(email: string): Promise<string> {
    const phone = `+9639${String(randomInt(10_000_000, 100_000_000))}`;
    const [passenger] = await app.db.query<{ id: string }>(
      `insert into passengers (phone, name, email) values ($1, 'Layla', $2) returning id`,
      [phone, email],
    );
    const [user] = await app.db.query<{ id: string }>(
      `insert into users (email, email_verified_at, name, phone, passenger_id) values ($1, now(), 'Layla', $2, $3)
       returning id`,
      [email, phone, passenger!.id],
    );
    await app.db.query(
      `insert into user_identities (user_id, provider, subject, email) values ($1, 'idp', $2, $3)`,
      [user!.id, randomUUID(), email],
    );
    return user!.id;
  }

  const addresses = (userId: string) =>
    app.db.query(
      `select u.email, i.email as identity, p.email as passenger from users u
         join user_identities i on i.user_id = u.id left join passengers p on p.id = u.passenger_id
        where u.id = $1`,
      [userId],
    );
  const forgot = (email: string) =>
    app.request('/api/auth/forgot-password', { method: 'POST', json: { email } });
  /** The addresses the account's recovery links were sent to. */
  const resetLinks = async (userId: string) =>
    (
      await app.db.query<{ email: string }>(
        `select email from email_tokens where user_id = $1 and purpose = 'RESET_PASSWORD'`,
        [userId],
      )
    ).map((link) => link.email);

  it('can recover its password with the address once the migration has run', async () => {
    const local = `layla-${randomUUID().slice(0, 8)}`;
    const typed = `${local}@مثال.سورية`;
    const ascii = `${local}@xn--mgbh0fb.xn--ogbpf8fl`;
    expect(readEmail(typed)).toBe(ascii);
    const userId = await providerAccount(typed);

    await app.db.orm.migrator.down({ to: BEFORE });
    const before = await forgot(typed);
    expect(before.status, before.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      { mails: mail.smtp.messagesTo(typed).length, links: await resetLinks(userId) },
      'before the migration',
    ).toEqual({ mails: 0, links: [] });

    await app.db.orm.migrator.up();
    expect(await addresses(userId)).toEqual([{ email: ascii, identity: ascii, passenger: ascii }]);
    const after = await forgot(typed);
    expect(after.status, after.text).toBe(200);
    // The test's SMTP server writes a recipient's domain in Unicode (smtp-server reads xn-- labels so):
    // the message sent to the ASCII form is found under the address as typed.
    const message = await mail.smtp.waitForMessage(typed);
    expect(message.subject).toContain('Reset your password');
    expect(await resetLinks(userId)).toEqual([ascii]);
  });

  it('leaves an address whose ASCII form another account holds, and one the e-mail rule cannot read, as they were', async () => {
    const local = `rana-${randomUUID().slice(0, 8)}`;
    const typed = `${local}@مثال.سورية`;
    const ascii = readEmail(typed)!;
    const shadowed = await providerAccount(typed);
    // Another account took the ASCII form (the provider's sign-in since, another subject).
    const holder = await providerAccount(ascii);
    const cyrillic = await providerAccount(`${local}@пример.рф`);

    await app.db.orm.migrator.down({ to: BEFORE });
    await app.db.orm.migrator.up();

    expect(await addresses(shadowed)).toEqual([{ email: typed, identity: ascii, passenger: ascii }]);
    expect(await addresses(holder)).toEqual([{ email: ascii, identity: ascii, passenger: ascii }]);
    const unread = `${local}@пример.рф`;
    expect(await addresses(cyrillic)).toEqual([{ email: unread, identity: unread, passenger: unread }]);
    // Recovery reaches the account holding the ASCII form, as before.
    expect((await forgot(typed)).status).toBe(200);
    await mail.smtp.waitForMessage(typed);
    expect([await resetLinks(holder), await resetLinks(shadowed)]).toEqual([[ascii], []]);
  });
});

describe(`${MIGRATION}: its copy of the e-mail rule`, () => {
  it('reads every address as domain/email-address.ts readEmail does', () => {
    const samples = [
      'layla@example.test',
      'Layla.K@Example.COM',
      'layla@مثال.سورية',
      'layla@Mail.مثال.xn--ogbpf8fl',
      'layla@example.xn--ogbpf8fl',
      "o'hara+bus@sub-1.example.org",
      'layla@localhost',
      'layla khoury@example.test',
      'رنا@example.test',
      'layla@пример.рф',
      'layla@example.c0m',
      `${'a'.repeat(64)}@${'b'.repeat(185)}.test`,
      `${'a'.repeat(64)}@${'b'.repeat(186)}.test`,
    ];
    expect(samples.map(migratedEmail)).toEqual(samples.map(readEmail));
  });
});
