/**
 * Phone numbers as the sign-in flows store and compare them: E.164 (`+` then 8 to 15 digits).
 * Syria is the home market, so a national number with its trunk 0 (`0944 123 456`) is read as
 * Syrian; any other country needs its prefix (`+961...` or `00961...`).
 */

const SYRIA = '963';

/**
 * National significant numbers in Syria have 8 (some landlines) or 9 digits (mobiles, most
 * landlines) and never start with 0 (that is the trunk prefix): `+963 0 0...` is no number, and
 * reading it as one made the E.164 form fail a second reading.
 */
const SYRIAN_NSN = /^[1-9]\d{7,8}$/;

/** Reserved range of the demo and QA identities: no real subscriber is ever reached there. */
export const RESERVED_DEMO_PREFIX = '+963900';

/** A reserved demo number: the example the API reference gives, which pre-launch mode serves. */
export const DEMO_PHONE_EXAMPLE = '+963900000001';

/**
 * The forms `normalisePhone` reads, as regular-expression source with `sep` between characters:
 * after `+` or `00`, a country code (Syria: 8 or 9 national digits, with or without its trunk 0;
 * elsewhere 8 to 15 digits in all); or a Syrian national number with its trunk 0. Digits are
 * written [0-9] (not \d, which means every Unicode digit in some regex dialects a client may
 * validate with).
 */
function readableForms(sep: string): { international: string; national: string } {
  const digits = (min: number, max: number) => `(?:${sep}[0-9]){${min},${max}}`;
  const syrian = `9${sep}6${sep}3${sep}(?:0${sep})?[1-9]${digits(7, 8)}`;
  const foreign = `(?:[1-8]${digits(7, 14)}|9${sep}[0-57-9]${digits(6, 13)}|9${sep}6${sep}[0-24-9]${digits(5, 12)})`;
  return { international: `(?:${syrian}|${foreign})`, national: `0${sep}[1-9]${digits(7, 8)}` };
}

/**
 * The text `normalisePhone` reads, as one regular expression for the OpenAPI document and the
 * request schemas: optional separators (space . ( ) -) anywhere, then `+` or `00` and a country
 * code, or a Syrian national number with its trunk 0 (readableForms).
 */
export const PHONE_INPUT_PATTERN = (() => {
  const sep = '[ .()-]*';
  const { international, national } = readableForms(sep);
  return new RegExp(`^${sep}(?:(?:\\+|00)${sep}${international}|${national})${sep}$`);
})();

/**
 * A person's phone number as the booking routes take it: the international form, `+` and digits
 * only (+963944123456), that `normalisePhone` reads. A Syrian number may keep its trunk 0 after
 * +963 (+9630944123456); what sign-in cannot read as a number (+963 0 0..., 7 national digits)
 * does not match, where "+ then 8 to 15 digits" let it through.
 */
export const INTERNATIONAL_PHONE_PATTERN = new RegExp(`^\\+${readableForms('').international}$`);

/**
 * The E.164 form of a phone number typed by a person, or null when it cannot be one. Spaces,
 * dashes, dots and brackets are dropped; `00` is the international prefix; a Syrian number
 * written with its trunk 0 after the country code (`+963 0944...`) loses that 0.
 */
export function normalisePhone(input: string): string | null {
  const compact = input.trim().replace(/[\s\-.()\u00a0]/g, '');
  let digits: string;
  if (compact.startsWith('+')) digits = compact.slice(1);
  else if (compact.startsWith('00')) digits = compact.slice(2);
  else if (/^0[1-9]/.test(compact)) digits = SYRIA + compact.slice(1);
  else return null;
  if (!/^[1-9]\d*$/.test(digits)) return null;
  if (digits.startsWith(SYRIA)) {
    const national = digits.slice(SYRIA.length).replace(/^0/, '');
    return SYRIAN_NSN.test(national) ? `+${SYRIA}${national}` : null;
  }
  return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
}

/** True for the reserved demo numbers (+963900...), the only ones pre-launch mode serves. */
export function isReservedDemoPhone(e164: string): boolean {
  return e164.startsWith(RESERVED_DEMO_PREFIX);
}
