/**
 * The request side of the OpenAPI document as any client reads it, not only JavaScript:
 * - the body reader refuses U+0000 in every string of a path, query string and JSON body before zod
 *   runs (api/http/middleware.ts jsonBody, 400 NUL_CHARACTER), so a string without a pattern of its
 *   own says so with `^[^\u0000]*$`;
 * - a pattern's `\d` is written `[0-9]`: the server reads it as ECMAScript does (ASCII digits only),
 *   while other dialects (Python's, which generators and validators in other languages use) take it
 *   for every Unicode digit, so a client following the document would send Arabic-Indic digits that
 *   the server refuses.
 */

type Json = unknown;

const NO_NUL = '^[^\\u0000]*$';

/** The request-side schema with the rules above applied (a new value; the input is left alone). */
export function portableRequestSchema<T extends Json>(schema: T): T {
  return rewrite(schema) as T;
}

function rewrite(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewrite);
  if (typeof value !== 'object' || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rewrite(inner)]));
  // Every pattern, also one inside allOf (a string with two patterns), is written with ASCII digits.
  if (typeof node.pattern === 'string') return { ...node, pattern: asciiDigits(node.pattern) };
  if (!isFreeString(node) || node.allOf !== undefined) return node;
  return { ...node, pattern: NO_NUL };
}

/** A string schema whose values are not listed (an enum or a const already says what may be sent). */
function isFreeString(node: Record<string, unknown>): boolean {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes('string') && node.enum === undefined && node.const === undefined;
}

/** `\d` as `[0-9]` (inside a character class as `0-9`); every other escape as written. */
export function asciiDigits(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      out += next === 'd' ? (inClass ? '0-9' : '[0-9]') : `\\${next}`;
      index += 1;
      continue;
    }
    if (char === '[' && !inClass) inClass = true;
    else if (char === ']' && inClass) inClass = false;
    out += char;
  }
  return out;
}
