/**
 * Texts a field that people read refuses (api/http/schemas.ts PrintedText and PrintedProse): each
 * holds one control or bidirectional-override character, which could make the text read as another
 * ("\u202E21" shows as "12"). NUL is left out: the JSON body reader refuses it in any field first
 * (400 NUL_CHARACTER).
 */
export const UNPRINTABLE_TEXTS = {
  'a bell': 'Bus broke\u0007 down',
  'an escape': 'Bus \u001b[31mbroke down',
  'a DEL': 'Bus broke\u007f down',
  'a C1 control (NEL)': 'Bus broke\u0085 down',
  'a carriage return without a line feed': 'Bus broke\rdown',
  'a right-to-left override': 'Bus broke \u202Enwod',
  'a left-to-right embedding': 'Bus \u202Abroke\u202C down',
  'a first-strong isolate': 'Bus \u2068broke\u2069 down',
};

/** What a one-line field (a subject) refuses besides: a line break, a tab. */
export const NOT_ONE_LINE_TEXTS = { 'a line feed': 'Bus broke\ndown', 'a tab': 'Bus broke\tdown' };

/** Prose as a person writes it: line breaks (LF and CRLF) and tabs, which prose keeps as written. */
export const PROSE = 'Bus broke down:\n\t- near Homs\r\n\t- two hours late';
