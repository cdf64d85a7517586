/**
 * Text printed to people (a name on a ticket, in a company's loyalty list, on a document): which
 * characters it may hold, one rule for the request schemas that refuse a typed text
 * (api/http/schemas.ts PrintedText) and for a name another system hands over, an identity
 * provider's, which nobody can be asked to retype and is therefore cleaned rather than refused.
 */

import { nameHasLetter } from './trip-planning.js';

/**
 * What text printed to travellers may not hold: C0/C1 control characters and the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Printed on a ticket or a seat
 * map, an override makes one text read as another ("\u202E21" shows as "12"). The body of a
 * character class, so the request schemas' patterns (and the OpenAPI document) say the same.
 * The left-to-right and right-to-left marks (U+200E, U+200F) are not here: they override nothing
 * and Arabic names written beside Latin text need them.
 */
export const UNPRINTABLE = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';

/**
 * The longest name an account takes, in characters (code points, as PostgreSQL's char_length and
 * the request schemas count): the name typed at verify-otp and the one an identity provider gives.
 */
export const ACCOUNT_NAME_MAX = 100;

/** What breaks a line or tabs (NEL is a C1 control, not JavaScript's \s): it separates words. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
const UNPRINTABLE_CHARACTERS = new RegExp(`[${UNPRINTABLE}]`, 'g');
/** Half of a UTF-16 pair with no other half: no character at all. */
const LONE_SURROGATES = /\p{Cs}/gu;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const codePoints = (text: string): number => [...text].length;

/**
 * A name from outside (the identity provider's `name` claim) as a typed name would have to be: line
 * breaks and tabs become spaces, other control and bidirectional-override characters (and broken
 * UTF-16) are dropped, runs of white space become one space, the ends are trimmed, and a name longer
 * than `max` characters is cut at the last whole character (grapheme: an emoji with its joiners and
 * modifiers, a letter with its marks) that fits. '' when nothing printable is left, or no letter
 * (nameHasLetter: a typed name needs one; diacritics, tatweel and invisible characters alone print nothing).
 */
export function printableName(raw: string, max: number = ACCOUNT_NAME_MAX): string {
  const name = cutToLength(
    raw
      .replace(BREAKS, ' ')
      .replace(UNPRINTABLE_CHARACTERS, '')
      .replace(LONE_SURROGATES, '')
      .replace(/\s+/g, ' ')
      .trim(),
    max,
  );
  return nameHasLetter(name) ? name : '';
}

/** `name` cut at the last whole character (grapheme) within `max` characters. */
function cutToLength(name: string, max: number): string {
  if (codePoints(name) <= max) return name;
  let kept = '';
  let length = 0;
  for (const { segment } of graphemes.segment(name)) {
    length += codePoints(segment);
    if (length > max) break;
    kept += segment;
  }
  return kept.trimEnd();
}
