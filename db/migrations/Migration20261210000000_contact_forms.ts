import { domainToASCII } from 'node:url';
import { Migration } from '@mikro-orm/migrations';

/**
 * Rows written before one field was read by one rule (README "Bookings and seat locks":
 * passenger_phone; "Travellers": every e-mail address), rewritten in the form that rule stores, so every
 * surface finds them as it finds a row written since.
 *
 * Phones. POST /bookings (`passenger_phone`) and a journey confirm (a traveller's `phone`) stored the
 * number as typed; since, they keep the E.164 form sign-in stores (domain/phone.ts normalisePhone).
 * The only typed form that rule folds into another is a Syrian number that keeps its trunk 0 after
 * +963: `+9630944123456` is `+963944123456`. Such a row was missed by the ledger search by phone
 * (README "Company finance": "matched as its E.164 form") and named apart from the traveller's account
 * by the manifest. Rewritten: bookings.passenger_phone and journey_tickets.traveller_phone (the manifest
 * reads the ticket's phone first), where the whole text is `+9630` then 8 or 9 digits not starting with
 * 0 (SYRIAN_NSN after the trunk 0: `^\+9630[1-9][0-9]{7,8}$`), the 0 dropped. Any other text stays: the
 * routes took + and 8 to 15 digits, which normalisePhone keeps as they are or cannot read (`+96300…`,
 * too few digits), and the other phone columns (users, passengers, otp_challenges) come from sign-in,
 * in E.164 already. updated_at stays: the same number is written another way, nobody changed it
 * (and a booking's updated_at dates its ending: db/queries/booking-ending.ts).
 *
 * E-mails. The identity provider's address was kept as the provider spelt it (any text with an @);
 * since, it is read by domain/email-address.ts readEmail and kept in its ASCII form (an Arabic domain
 * label as its xn-- label, the domain lower case), which is also how password recovery compares the
 * address it is given. An account the provider made under `مثال.سورية` could not recover its password.
 * Rewritten where the provider's address went: users.email (sign-in, link), user_identities.email and
 * passengers.email (copied from users.email when a phone is added). Only addresses holding a character
 * beyond ASCII change (an ASCII address is compared without regard to case already), and only those
 * readEmail reads (another script's letters, an address too long: left as they are, as the new code
 * would have refused them). A users.email whose ASCII form another account holds already (the unique
 * index on lower(email): that account signed in or registered with the ASCII form) stays as it was:
 * two accounts cannot hold one address, and which person owns it is not the migration's to decide
 * (user_identities and passengers have no such index: their copies are rewritten in every case). The
 * conversion is computed in TypeScript (punycode is no SQL function), row by row, users locked against
 * writes meanwhile so that no account takes an ASCII form between the check and the rewrite.
 *
 * The e-mail rule (EMAIL_PATTERN, EMAIL_MAX_LENGTH, asciiEmail) is copied, not imported: a migration
 * states what it did, whatever domain/ says later. test/db/contact-forms-migration.test.ts holds the
 * copy to readEmail's answers.
 *
 * Not rewritten: stored answers of idempotent calls (a retry is answered as the first call was) and
 * audit and history records (what was written then).
 */

const ARABIC_LETTER = '[\\u0621-\\u063a\\u0641-\\u064a]';
const ARABIC_LABEL = `${ARABIC_LETTER}(?:[\\u0621-\\u063a\\u0641-\\u064a0-9-]*[\\u0621-\\u063a\\u0641-\\u064a0-9])?`;
const ASCII_LABEL = '[A-Za-z0-9][A-Za-z0-9-]*';
const LAST_LABEL = `(?:[A-Za-z]{2,}|[Xx][Nn]--[A-Za-z0-9-]+|${ARABIC_LABEL})`;
const ARABIC_ONLY = new RegExp(`^${ARABIC_LABEL}$`);
const EMAIL_PATTERN = new RegExp(
  "^(?=[^@]{1,64}@)(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+.-]*[A-Za-z0-9_+-]@" +
    `(?:(?:${ASCII_LABEL}|${ARABIC_LABEL})\\.)+${LAST_LABEL}$`,
);
const EMAIL_MAX_LENGTH = 254;

/** domain/email-address.ts readEmail as of this migration: the ASCII form of an address, or null. */
export function migratedEmail(text: string): string | null {
  if (text.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(text)) return null;
  const at = text.lastIndexOf('@');
  const labels = text
    .slice(at + 1)
    .split('.')
    .map((label) => (ARABIC_ONLY.test(label) ? domainToASCII(label) : label.toLowerCase()));
  return `${text.slice(0, at)}@${labels.join('.')}`;
}

/** The columns of a passenger's or journey traveller's phone as POST /bookings and a confirm typed it. */
const PHONE_COLUMNS = [
  ['bookings', 'passenger_phone'],
  ['journey_tickets', 'traveller_phone'],
] as const;

/** Text with a character beyond ASCII (the database is UTF-8: such a character takes more than a byte). */
const BEYOND_ASCII = (column: string) => `octet_length(${column}) > char_length(${column})`;

export class Migration20261210000000_contact_forms extends Migration {
  override async up(): Promise<void> {
    for (const [table, column] of PHONE_COLUMNS) {
      this.addSql(`update ${table} set ${column} = '+963' || substr(${column}, 6)
                    where ${column} ~ '^[+]9630[1-9][0-9]{7,8}$'`);
    }

    // `?` are MikroORM's placeholders (Migration.execute); values are quoted as literals.
    await this.execute(`lock table users in share row exclusive mode`);
    const users = await this.execute(
      `select id, email from users where email is not null and ${BEYOND_ASCII('email')} order by id`,
    );
    for (const { id, email } of users as { id: string; email: string }[]) {
      const ascii = migratedEmail(email);
      if (ascii === null || ascii === email) continue;
      await this.execute(
        `update users set email = ? where id = ?
            and not exists (select 1 from users o where o.id <> ? and lower(o.email) = lower(?))`,
        [ascii, id, id, ascii],
      );
    }
    for (const table of ['user_identities', 'passengers']) {
      const typed = await this.execute(
        `select distinct email from ${table} where email is not null and ${BEYOND_ASCII('email')}`,
      );
      for (const { email } of typed as { email: string }[]) {
        const ascii = migratedEmail(email);
        if (ascii !== null && ascii !== email) {
          await this.execute(`update ${table} set email = ? where email = ?`, [ascii, email]);
        }
      }
    }
  }

  override down(): void {
    // No-op: the typed form is not kept (it names the same number and the same address). Rolled back,
    // the rows stay in the form this release stores, as rows the release's own code wrote do.
  }
}
