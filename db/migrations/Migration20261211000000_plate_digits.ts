import { Migration } from '@mikro-orm/migrations';

/**
 * Bus plates stored before one plate was one bus whatever the digits and the tatweel it is typed with
 * (README "Company planning": Buses), rewritten in the form POST /buses stores since (domain/trip-planning.ts
 * plateForm): Arabic-Indic (٠-٩) and Eastern Arabic-Indic (۰-۹) digits as 0-9, no tatweel, one space
 * between words. The route refuses a plate another bus of the company holds by comparing the stored
 * plates in upper case with the new plate in that form, and the unique (company_id, plate_number) holds
 * against two requests at once; a row left in another form would be missed by both, so `دمشق ١٢٣٤٥٦`
 * stored before would let `دمشق 123456` register a second bus.
 *
 * A plate whose form another bus of the company already holds (compared in upper case, as the route
 * compares) stays as it was typed: the company registered one plate twice before this release, both
 * buses may carry trips and tickets, and which of them is the bus is not the migration's to decide (nor
 * can two rows hold one plate under the unique index). Each such bus is reported on the migration's
 * output (`npm run migrate`) with its company, for the company to retire one; new buses are still
 * refused that plate, since its other holder is in the stored form. Rows are taken oldest first, so the
 * first bus registered under a plate is the one rewritten. A plate the form would leave under 2
 * characters or starting with something else than a letter or digit (tatweel dropped from its start)
 * also stays as it is, reported too: the rule it was stored under would no longer hold.
 *
 * The form is copied, not imported: a migration states what it did, whatever domain/ says later.
 * test/db/plate-digits-migration.test.ts holds the copy to plateForm's answers.
 */

const ARABIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/g;

/** domain/trip-planning.ts plateForm as of this migration. */
export function migratedPlate(plate: string): string {
  return plate
    .replace(ARABIC_DIGIT, (digit) => String(digit.charCodeAt(0) % 16))
    .replace(/\u0640/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The rule a stored plate kept that dropping tatweel could break: 2 characters, a letter or digit first. */
const keepsRule = (plate: string) => plate.length >= 2 && /^[\p{L}\p{N}]/u.test(plate);

interface TypedPlate {
  id: string;
  company_id: string;
  plate_number: string;
}

export class Migration20261211000000_plate_digits extends Migration {
  override async up(): Promise<void> {
    // No bus registered between the read and the rewrites: it could take a form meanwhile.
    await this.execute(`lock table buses in share row exclusive mode`);
    const typed = (await this.execute(
      String.raw`select id, company_id, plate_number from buses
                  where plate_number ~ '[\u0660-\u0669\u06f0-\u06f9\u0640]|\s\s|^\s|\s$'
                  order by created_at, id`,
    )) as TypedPlate[];
    const kept: string[] = [];
    for (const bus of typed) {
      const form = migratedPlate(bus.plate_number);
      if (form === bus.plate_number) continue;
      // `?` are MikroORM's placeholders (Migration.execute); values are quoted as literals.
      const rewritten = keepsRule(form)
        ? await this.execute(
            `update buses b set plate_number = ? where b.id = ? and not exists (
               select 1 from buses o where o.company_id = b.company_id and o.id <> b.id
                 and upper(o.plate_number) = upper(?)) returning b.id`,
            [form, bus.id, form],
          )
        : [];
      if (rewritten.length === 0) kept.push(`${bus.company_id} ${bus.id} "${bus.plate_number}" (${form})`);
    }
    if (kept.length > 0) {
      console.warn(
        `plate_digits: ${kept.length} bus plate(s) kept as typed, their form held by another bus of the ` +
          `company or breaking the plate rule (company, bus, plate, form):\n${kept.join('\n')}`,
      );
    }
  }

  override down(): void {
    // No-op: the typed form is not kept (it names the same plate). Rolled back, the plates stay in the
    // form this release stores, as plates the release's own code wrote do.
  }
}
