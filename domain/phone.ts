/**
 * Phone numbers as the sign-in flows store and compare them: E.164 (`+` then 8 to 15 digits).
 * Syria is the home market, so a national number with its trunk 0 (`0944 123 456`) is read as
 * Syrian; any other country needs its prefix (`+961...` or `00961...`).
 */

const SYRIA = '963';

/** National significant numbers in Syria have 8 (some landlines) or 9 digits (mobiles, most landlines). */
const SYRIAN_NSN = /^\d{8,9}$/;

/** Reserved range of the demo and QA identities: no real subscriber is ever reached there. */
export const RESERVED_DEMO_PREFIX = '+963900';

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
