import { domainToASCII } from 'node:url';

/**
 * E-mail addresses as every surface reads, stores and compares them: the request schemas
 * (api/http/schemas.ts Email) and the identity provider's verified address (api/auth/idp-verify.ts)
 * apply this one rule, so an address one of them takes is never refused by another (an account
 * signed in by the provider can always ask for password recovery with the same address).
 *
 * The local part (before the @) is ASCII, 1 to 64 characters (RFC 5321): letters, digits and
 * _ ' + . -, not starting with a dot, not ending with a dot or ', no two dots in a row. The domain
 * is labels separated by dots, each either ASCII (a letter or digit, then letters, digits and
 * hyphens) or written in Arabic letters (U+0621–U+063A, U+0641–U+064A; ASCII digits and hyphens
 * after the first letter, ending with a letter or digit); its last label is at least two ASCII
 * letters, a punycode label (xn--, as an internationalised top-level domain is written in DNS:
 * example.xn--ogbpf8fl is Syria's .سورية) or an Arabic label. Other scripts are taken in their
 * xn-- form only: the characters a pattern can name are the ones whose conversion never fails.
 */
const ARABIC_LETTER = '[\\u0621-\\u063a\\u0641-\\u064a]';
const ARABIC_LABEL = `${ARABIC_LETTER}(?:[\\u0621-\\u063a\\u0641-\\u064a0-9-]*[\\u0621-\\u063a\\u0641-\\u064a0-9])?`;
const ASCII_LABEL = '[A-Za-z0-9][A-Za-z0-9-]*';
const LAST_LABEL = `(?:[A-Za-z]{2,}|[Xx][Nn]--[A-Za-z0-9-]+|${ARABIC_LABEL})`;
const ARABIC_ONLY = new RegExp(`^${ARABIC_LABEL}$`);

/**
 * The addresses accepted, as written (the OpenAPI document's pattern of every e-mail field). Its
 * ASCII form (asciiEmail) matches it too. Digits are [0-9] and characters \u escapes, so regex
 * dialects other than ECMAScript's (a client's, the contract fuzzer's Python) read it alike.
 */
export const EMAIL_PATTERN = new RegExp(
  "^(?=[^@]{1,64}@)(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+.-]*[A-Za-z0-9_+-]@" +
    `(?:(?:${ASCII_LABEL}|${ARABIC_LABEL})\\.)+${LAST_LABEL}$`,
);

/** At most this many characters as sent (RFC 5321's path limit less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * The stored and compared form of an address EMAIL_PATTERN matches: each Arabic label becomes its
 * punycode label (node:url domainToASCII, IDNA) and the domain is lower case; the local part stays
 * as written (lookups compare addresses without regard to case).
 */
export function asciiEmail(address: string): string {
  const at = address.lastIndexOf('@');
  const labels = address
    .slice(at + 1)
    .split('.')
    .map((label) => (ARABIC_ONLY.test(label) ? domainToASCII(label) : label.toLowerCase()));
  return `${address.slice(0, at)}@${labels.join('.')}`;
}

/**
 * The ASCII form of `text` when it is an address this rule takes (EMAIL_PATTERN, at most
 * EMAIL_MAX_LENGTH characters), else null.
 */
export function readEmail(text: string): string | null {
  return text.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(text) ? asciiEmail(text) : null;
}
