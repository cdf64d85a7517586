import { Migration } from '@mikro-orm/migrations';

/**
 * `name_key(text)`: a name as names match, the database's copy of domain/trip-planning.ts nameKey
 * (README "Network"), so the dashboard's and the administration's list searches find a name typed
 * another way: احمد for أحمد, ابراهيم for إبراهيم, الحمزه for الحمزة, مصطفي for مصطفى, with vowel
 * marks or tatweel, in any case. The searches compare name_key of the column with name_key of the
 * text typed (db/queries/filtered-lists.ts nameContains).
 *
 * The same steps as nameKey, in its order: NFKD (hamza seats and accents become marks), drop the
 * invisible format characters (Unicode's Cf, listed here as the pinned Node reads \p{Cf}) and the
 * ignored marks and tatweel (nameKey's IGNORED_IN_NAMES), fold the letters of FOLDED_LETTERS, lower
 * case, every run of white space (JavaScript's \s) to one space, trimmed. The lists are copied, not
 * imported: a migration states what it created. test/db/name-key.test.ts holds the two to the same
 * answers, character by character.
 *
 * No index: no search uses one today (each filters its rows by company, or reads a small table, and
 * tests the text on those), a b-tree on name_key could not answer a containing pattern anyway, and
 * the plans stay as they were (EXPLAIN: the same scans, name_key in the filter).
 */

/** Unicode's format characters (\p{Cf}), then nameKey's IGNORED_IN_NAMES. */
const DROPPED =
  String.raw`\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e` +
  String.raw`\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f` +
  String.raw`\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f` +
  String.raw`\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640`;

/** JavaScript's \s; a single plain space is left as it is (most names have some, none to change). */
const SPACE = String.raw`\t\n\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/** FOLDED_LETTERS: ی → ي, ک → ك, ى → ي, ة → ه, ٱ → ا (one replace each, cheaper than translate). */
const FOLDED: [string, string][] = [
  ['\u06cc', '\u064a'],
  ['\u06a9', '\u0643'],
  ['\u0649', '\u064a'],
  ['\u0629', '\u0647'],
  ['\u0671', '\u0627'],
];

const folded = (text: string) =>
  FOLDED.reduce((inner, [from, to]) => `replace(${inner}, '${from}', '${to}')`, text);

export class Migration20261209000000_name_key extends Migration {
  override up(): void {
    // One expression (no FROM): the planner inlines it into the statement that calls it.
    this.addSql(`
      create or replace function name_key(name text) returns text
        language sql immutable strict parallel safe as $$
          select btrim(regexp_replace(
                   lower(${folded(`regexp_replace(normalize(name, NFKD), '[${DROPPED}]', '', 'g')`)}),
                   '[ ${SPACE}]{2,}|[${SPACE}]', ' ', 'g'), ' ')
        $$`);
  }

  override down(): void {
    this.addSql(`drop function if exists name_key(text)`);
  }
}
