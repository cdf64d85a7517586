import { z } from 'zod';
import {
  DEMO_PHONE_EXAMPLE,
  INTERNATIONAL_PHONE_PATTERN,
  normalisePhone,
  PHONE_INPUT_PATTERN,
} from '../../domain/phone.js';
import { UNPRINTABLE } from '../../domain/printed-text.js';
import { NAME_LETTER, nameHasLetter } from '../../domain/trip-planning.js';
import { asciiEmail, EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../../domain/email-address.js';

/** Canonical UUID text of any version (8-4-4-4-12 hex digits); normalised to lower case. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * A UUID field; `params` are z.string's (a route that names an absent field by its own errorCode
 * passes its message, as for PrintedProse).
 */
export const UuidWith = (params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .regex(UUID_PATTERN, 'must be a canonical UUID')
    // toLowerCase (not transform) keeps the output a string, so response schemas still say type/pattern.
    .toLowerCase()
    .meta({ format: 'uuid', examples: ['0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c'] });

export const Uuid = UuidWith();

/** A calendar date, YYYY-MM-DD, that exists (from year 1: PostgreSQL has no year 0, JavaScript has). */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (value) =>
      !value.startsWith('0000') &&
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'must be a real calendar date',
  )
  .meta({ format: 'date' });

/** The bytes of a file answered as it is (a PDF): OpenAPI's binary string. */
export const FileBytes = z.string().meta({ format: 'binary' });

/** A moment as the API writes it: ISO 8601 in UTC. */
export const Instant = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC' });

/**
 * One line's characters: none UNPRINTABLE (domain/printed-text.ts, shared with the cleaning of an
 * identity provider's name), and not the Unicode line and paragraph separators.
 */
const ONE_LINE = `[^${UNPRINTABLE}\\u2028\\u2029]`;
const PRINTABLE_ONLY = new RegExp(`^${ONE_LINE}*$`);

/** Lines of text: none of UNPRINTABLE but tabs and line breaks (LF, or CRLF; a lone CR is none). */
const PRINTABLE_LINES = new RegExp(`^(?:[^${UNPRINTABLE}]|[\\t\\n]|\\r\\n)*$`);

/**
 * What String.prototype.trim removes (JavaScript's \s), named one by one since other engines' \s
 * differ (Python's lacks U+FEFF). The check trims before it looks at a character, so a text may
 * begin and end with any of them.
 */
const TRIMMED =
  '[\\t\\n\\u000b\\u000c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
/** A character that is neither trimmed nor UNPRINTABLE. */
const MARK = `[^${TRIMMED.slice(1, -1)}${UNPRINTABLE}]`;

/**
 * The document's pattern of a text of `unit`s that is at least `min` characters once trimmed: what
 * the check (trim, then min and the characters) takes, so a client or the contract fuzzer that
 * follows the document is not refused (a text of line breaks and one letter is). Exact when a unit
 * is one character; prose's CRLF unit counts one, so above min 3 it is a little stricter.
 */
function trimmedPattern(unit: string, min: number): string {
  const text =
    min <= 1
      ? `(?:${MARK}(?:${unit}*${MARK})?)${min === 1 ? '' : '?'}`
      : `${MARK}${unit}{${min - 2},}${MARK}`;
  return `^${TRIMMED}*${text}${TRIMMED}*$`;
}

/**
 * How the document words a PrintedText's (`line`) or PrintedProse's (`prose`) length and
 * characters; PrintedProse carries it as its description, a PrintedText's field adds it to its own.
 */
export function textRule(min: number, max: number, kind: 'line' | 'prose'): string {
  const length = min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`;
  return kind === 'line'
    ? `${length}, one line: no control or bidirectional-override character`
    : `${length}; line breaks and tabs but no other control or bidirectional-override character`;
}

/**
 * A label travellers see (a name, a seat number): trimmed, `min` to `max` characters on one line,
 * none of them UNPRINTABLE (nor U+2028 or U+2029, which break a line). A pattern rather than a check
 * in code, so the OpenAPI document states the rule. The zod this project requires (^4.6.7) counts a
 * string's `.min`/`.max` in code points, as the document's minLength/maxLength and PostgreSQL's
 * char_length do: an emoji is one character, not two UTF-16 units (test/api/text-length-code-points.test.ts).
 */
export const PrintedText = (min: number, max: number) =>
  z
    .string()
    // The document's maxLength bounds the text as sent, the spaces trimmed off its ends included.
    .max(max)
    .trim()
    .min(min)
    .max(max)
    .regex(PRINTABLE_ONLY, 'must not contain control or bidirectional-override characters')
    .meta({ pattern: trimmedPattern(ONE_LINE, min) });

/**
 * Prose people read (an administrator's reason shown in a company's history): a PrintedText that
 * may also break lines and hold tabs, which show as white space and cannot disguise the text.
 * `params` are z.string's (a route that names an absent field by its own errorCode passes its message).
 */
export const PrintedProse = (min: number, max: number, params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .max(max)
    .trim()
    .min(min)
    .max(max)
    .regex(
      PRINTABLE_LINES,
      'must not contain control or bidirectional-override characters other than tabs and line breaks',
    )
    .meta({
      pattern: trimmedPattern(`(?:[^${UNPRINTABLE}]|[\\t\\n]|\\r\\n)`, min),
      description: textRule(min, max, 'prose'),
    });

/** Why a name is refused that shows nothing to tell it by (nameHasLetter). */
export const NAME_NEEDS_LETTER = 'must contain a letter besides tatweel and diacritics';

/** How a LetteredName field's description words the letter rule. */
export const NAME_LETTER_RULE =
  'needs a letter: diacritics, tatweel and invisible characters (U+200F, U+200B) alone, also as compatibility ' +
  'characters made of them (U+FE70), print nothing and are refused';

/**
 * A name people tell one thing or person by (a city, a passenger, an account): a PrintedText with
 * a letter name matching keeps (domain/trip-planning.ts nameHasLetter), so a name of marks, tatweel
 * or invisible format characters alone (U+200F, U+200B), which prints blank, is refused. The pattern
 * states the rule on the text as sent; the check after it catches the compatibility letters made of
 * marks only (the isolated fathatan, U+FE70), which the document cannot say.
 */
export const LetteredName = (min: number, max: number) =>
  PrintedText(min, max)
    .regex(NAME_LETTER, { message: NAME_NEEDS_LETTER, abort: true })
    .refine(nameHasLetter, NAME_NEEDS_LETTER);

/** A person's name as tickets, manifests and lists print it: a LetteredName of 1–120 characters. */
export const PersonName = LetteredName(1, 120);

/**
 * A phone number as a person types it (domain/phone.ts PHONE_INPUT_PATTERN: what normalisePhone
 * reads); the example is a reserved demo number, which pre-launch mode accepts.
 */
export const PhoneInput = z
  .string()
  .max(32)
  .regex(PHONE_INPUT_PATTERN, 'must be a phone number: +963944123456, 00963944123456 or 0944123456')
  .meta({ examples: [DEMO_PHONE_EXAMPLE] });

/**
 * A person's phone number in a request body (a booking's passenger_phone, a journey traveller's
 * phone): the international form with its leading + (domain/phone.ts INTERNATIONAL_PHONE_PATTERN),
 * white space around it trimmed, and kept in the E.164 form sign-in stores for the same number
 * (normalisePhone: +9630944123456 is +963944123456), so the ledger search, the manifest and the
 * traveller's account all name it alike. The route's own 400 code refuses anything else.
 */
export const PersonPhone = z
  .string()
  // The document's maxLength bounds the text as sent, the white space around it included.
  .max(32)
  .trim()
  .regex(INTERNATIONAL_PHONE_PATTERN, 'must be an international number: + then 8 to 15 digits')
  .meta({
    pattern: `^${TRIMMED}*${INTERNATIONAL_PHONE_PATTERN.source.slice(1, -1)}${TRIMMED}*$`,
    examples: [DEMO_PHONE_EXAMPLE],
  })
  .transform((value, context) => {
    const e164 = normalisePhone(value);
    if (!e164)
      context.addIssue({ code: 'custom', message: 'must be an international number: + then 8 to 15 digits' });
    return e164 ?? value;
  });

/**
 * An e-mail address of at most `max` characters as sent (domain/email-address.ts: the one rule the
 * identity provider's address is read by too), taken as its ASCII form: a domain label written in
 * Arabic letters becomes its xn-- label and the domain is lower case. The document's pattern is the
 * rule itself, so a client (or the contract fuzzer) that follows it is never refused. `max` bounds
 * the text as sent, before the conversion (an `.max` chained after would measure the ASCII form).
 */
export const Email = (max: number = EMAIL_MAX_LENGTH) =>
  z
    .string()
    .max(max)
    .regex(EMAIL_PATTERN, 'must be an e-mail address')
    // overwrite (not transform) keeps the output a string, so the document still says type/pattern.
    .overwrite(asciiEmail)
    .meta({
      format: 'idn-email',
      description:
        'an e-mail address: ASCII before the @ (at most 64 characters); a domain of ASCII labels, xn-- ' +
        '(punycode) labels or labels in Arabic letters, stored as its ASCII form (Arabic labels as xn--, ' +
        'the domain in lower case)',
    });

/** 0001-01-01T00:00:00Z, the first instant PostgreSQL takes (it has no year 0, JavaScript has). */
const FIRST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');

/**
 * An instant with Z or an offset (ISO 8601). The offset is held to PostgreSQL's range (±15:59) and
 * the year starts at 1 (PostgreSQL has no year 0, JavaScript has), both as written and in UTC:
 * 0001-01-01T00:00:00+15:00 is still year 0 in UTC. Any of these would pass the ISO reading and
 * then fail in the database. The latest instant the format can write (9999-12-31T23:59:59-15:59,
 * early in year 10000 UTC) is far inside PostgreSQL's range.
 */
export const InstantInput = z.iso
  .datetime({ offset: true })
  .regex(/(?:Z|[+-](?:0[0-9]|1[0-5]):[0-5][0-9])$/, 'the offset must be between -15:59 and +15:59')
  .refine((value) => !value.startsWith('0000'), 'the year must be 1 or later')
  .refine(
    (value) => Date.parse(value) >= FIRST_INSTANT_MS,
    'the instant must be 0001-01-01T00:00:00Z or later',
  )
  .meta({ description: 'ISO 8601 date-time with Z or an offset' });

export const Locale = z.enum(['ar', 'en']);
export const Currency = z.enum(['SYP']);

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * An integer in a query string: only decimal digits (a minus allowed, so a negative meets its
 * bound) become a number; Number() would also read 0x1e as 30 and 1e1, 10.0 or " 10" as 10. Any
 * other text stays text and is 400. Bounds, default and description go on `integer`, not on the
 * result: zod leaves them off the request side of a transform, and the document would lose them.
 */
export const queryInteger = <T extends z.ZodType<number>>(integer: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value),
    integer,
  );

/**
 * A list's free-text `search` (blank is no filter): at most 100 characters. `matches` says what it
 * matches; a phone number in any form sign-in reads is matched as its E.164 form (PHONE_SEARCH).
 */
export const ListSearch = (matches: string) =>
  z.string().trim().max(100).optional().meta({ description: matches });

/** How a list's search reads a phone number (db/queries: normalisePhone), for its description. */
export const PHONE_SEARCH =
  'a phone number in any form sign-in reads (0944 123 456, 00963…), matched as its E.164 form';

/**
 * How a list's search reads a name (db/queries/filtered-lists.ts nameContains: nameKey's folding,
 * README "Network"), for its description.
 */
export const NAME_SEARCH =
  'names match as the network matches city names: any case, ignoring diacritics and Arabic vowel marks, tatweel ' +
  'and invisible characters, with the Arabic spelling variants folded (أ إ آ ٱ as ا, ؤ as و, ئ and ى as ي, ة as ه: ' +
  'احمد finds أحمد, الحمزه finds الحمزة)';

export const Pagination = {
  limit: queryInteger(z.int().min(1).max(100).default(20)),
  offset: queryInteger(z.int().min(0).default(0)),
};

export const IdParams = z.object({ id: Uuid }).strict();

export const ErrorBody = z
  .object({
    success: z.literal(false),
    errorCode: z.string().meta({ description: 'stable code; clients choose the message they show by it' }),
    message: z.string().meta({ description: 'English text for developers, never shown to travellers as is' }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'facts about the refused input, such as validation issues' }),
    requestId: z
      .string()
      .meta({ description: 'the X-Request-Id of this answer; quote it when reporting a problem' }),
  })
  // Some SPEC errors add top-level fields (for example available_methods).
  .loose()
  .meta({ id: 'Error', description: 'The envelope every error answer shares' });

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: STATUS_TEXT[status] ?? 'Error', schema: ErrorBody }]),
  );

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input (errorCode names the rule)',
  401: 'Missing, invalid or expired credential',
  403: 'Not allowed',
  404: "Not found, or outside the caller's inventory scope",
  409: 'Conflicts with the current state',
  405: 'This method is not allowed on this path',
  410: 'Gone',
  413: 'The body is larger than 64 KiB (PAYLOAD_TOO_LARGE)',
  415: 'The body is not application/json, names a charset other than UTF-8, or is sent in a content coding (UNSUPPORTED_MEDIA_TYPE; Accept-Encoding: identity)',
  422: 'Well-formed, but asks for something the rules never allow (errorCode names the rule)',
  429: 'Rate limited',
  503: "Unavailable: switched off, under maintenance, or a dependency (PostgreSQL, Temporal) not answering (SERVICE_UNAVAILABLE or the feature's own *_UNAVAILABLE code, with Retry-After and details.retryAfterSeconds)",
};
