import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Pagination, PrintedProse, PrintedText, queryInteger } from '../../../api/http/schemas.js';

/** Query integers (SPEC "days=<integer 7 to 30>", limit and offset): decimal digits only, then their bounds. */
describe('queryInteger', () => {
  const Days = z.object({ days: queryInteger(z.int().min(7).max(30)) }).strict();
  const Page = z.object(Pagination).strict();

  it('reads decimal digits as the integer they write', () => {
    expect(Days.parse({ days: '7' })).toEqual({ days: 7 });
    expect(Days.parse({ days: '030' })).toEqual({ days: 30 });
    expect(Page.parse({ limit: '100', offset: '0' })).toEqual({ limit: 100, offset: 0 });
    expect(Page.parse({})).toEqual({ limit: 20, offset: 0 });
  });

  it('refuses text that Number() would read as a number: hexadecimal, exponent, decimal point, spaces', () => {
    for (const text of ['0x1e', '1e1', ' 10', '10 ', '10.0', '+10', '', 'ten', '٣٠']) {
      expect(Days.safeParse({ days: text }).success, JSON.stringify(text)).toBe(false);
      expect(Page.safeParse({ limit: text }).success, JSON.stringify(text)).toBe(false);
      expect(Page.safeParse({ offset: text }).success, JSON.stringify(text)).toBe(false);
    }
  });

  it('holds a number to its bounds', () => {
    for (const text of ['6', '31', '-7']) expect(Days.safeParse({ days: text }).success, text).toBe(false);
    expect(Page.safeParse({ limit: '0' }).success).toBe(false);
    expect(Page.safeParse({ limit: '101' }).success).toBe(false);
    expect(Page.safeParse({ offset: '-1' }).success).toBe(false);
  });

  it('describes itself in the document as the integer it is, bounds and default included', () => {
    expect(z.toJSONSchema(Page, { io: 'input' })).toMatchObject({
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        offset: { type: 'integer', minimum: 0, default: 0 },
      },
    });
    expect(z.toJSONSchema(Days, { io: 'input' })).toMatchObject({
      properties: { days: { type: 'integer', minimum: 7, maximum: 30 } },
      required: ['days'],
    });
  });
});

/**
 * Prose (an administrator's reason): the document's pattern says what the check takes, so a client
 * (or the contract fuzzer) that follows the document is not refused, and the other way round.
 */
describe('PrintedText and PrintedProse', () => {
  const samples = [
    'abc',
    'a b',
    'ab',
    'a',
    '',
    '   ',
    '\r\n\r\n0',
    '\r\n\r\n012\r\n',
    ' x\ty ',
    'line one\nline two',
    'line one\r\nline two',
    'a\rb',
    'ab\u202Ec',
    'abc\u0007',
    '\u00a0\u00a0abc\u3000',
    '\u2028ab\u2029',
    'a\u0085bc',
    '\ufeffab',
    '\ufeffabc\ufeff',
    '\u2003a\u2003',
    '\rabc\r',
    '\u000b abc \u000c',
    '\tab\tc',
    'ab\r\ncd',
    'a\u2028b',
    'a\u2029bc',
    'abcdefghijkl',
    'abcdefghijklm',
    ' abcdefghijk ',
    '\u00a00\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0',
  ];

  for (const [name, Text] of [
    ['PrintedText', PrintedText],
    ['PrintedProse', PrintedProse],
  ] as const) {
    for (const min of [0, 1, 2, 3, 5]) {
      it(`${name}: its pattern takes exactly what it takes, at min ${min}`, () => {
        const schema = Text(min, 12);
        const document = z.toJSONSchema(schema) as { pattern: string; minLength?: number; maxLength: number };
        const pattern = new RegExp(document.pattern);
        const valid = (text: string) =>
          pattern.test(text) && text.length >= (document.minLength ?? 0) && text.length <= document.maxLength;
        for (const text of samples) {
          expect(valid(text), JSON.stringify(text)).toBe(schema.safeParse(text).success);
        }
      });
    }
  }
});
