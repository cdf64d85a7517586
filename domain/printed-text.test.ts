import { describe, expect, it } from 'vitest';
import { ACCOUNT_NAME_MAX, printableName, UNPRINTABLE } from './printed-text.js';

const PRINTABLE_LINE = new RegExp(`^[^${UNPRINTABLE}\\u2028\\u2029]*$`);

describe('printableName (a name from outside, held to the typed rule)', () => {
  it.each([
    ['a plain name', 'Rana Khoury', 'Rana Khoury'],
    ['spaces at the ends', '  Rana Khoury \u00a0', 'Rana Khoury'],
    ['a right-to-left override', '\u202ERana Khoury\u202C', 'Rana Khoury'],
    ['isolates', 'Rana \u2068Khoury\u2069', 'Rana Khoury'],
    ['a bell and an escape', 'Ra\u0007na \u001bKhoury', 'Rana Khoury'],
    ['line breaks and tabs between words', 'Rana\r\n\tKhoury\u2028Haddad\u0085Jr', 'Rana Khoury Haddad Jr'],
    ['a run of spaces', 'Rana    Khoury', 'Rana Khoury'],
    ['half of a UTF-16 pair', 'Rana\ud83d Khoury', 'Rana Khoury'],
    ['an Arabic name with a right-to-left mark', 'رنا خوري\u200F', 'رنا خوري\u200F'],
  ])('cleans %s', (_label, raw, expected) => {
    expect(printableName(raw)).toBe(expected);
  });

  it('is empty when nothing printable is left', () => {
    expect(printableName('\u202E\u0007 \t\u2066\u2069')).toBe('');
    expect(printableName('')).toBe('');
  });

  it('is empty when no letter is left: marks, tatweel and invisible characters print nothing', () => {
    for (const raw of [
      '\u200F',
      '\u200B \u200B',
      '\u0640\u0640',
      '\u064B\u064E\u0652',
      '\u200F\u0640\u064E',
      '\uFE70',
    ])
      expect(printableName(raw), JSON.stringify(raw)).toBe('');
    expect(printableName('\u200Fسَارَة\u0640')).toBe('\u200Fسَارَة\u0640');
  });

  it('cuts a long name at the last whole character that fits, counted in code points', () => {
    expect(ACCOUNT_NAME_MAX).toBe(100);
    const grin = '\u{1F600}';
    expect(printableName(`${'b'.repeat(99)}${grin}more`)).toBe(`${'b'.repeat(99)}${grin}`);
    expect(printableName(`${'c'.repeat(100)}${grin}`)).toBe('c'.repeat(100));
    // A family emoji is 5 code points joined: all of it or none.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(printableName(`${'a'.repeat(97)}${family}`)).toBe('a'.repeat(97));
    // A letter keeps its marks; the cut leaves no space at the end.
    expect(printableName(`${'d'.repeat(98)} e\u0301`)).toBe('d'.repeat(98));
    expect(printableName('x'.repeat(10), 4)).toBe('xxxx');
  });

  it('always leaves what a typed one-line name of at most 100 characters may hold', () => {
    const raw = `\u202E ${'\u{1F469}\u{1F3FD}'.repeat(30)}\u0007\n${'ن'.repeat(90)}\u2066`;
    const name = printableName(raw);
    expect(name).toMatch(PRINTABLE_LINE);
    expect(name).toBe(name.trim());
    expect([...name].length).toBeLessThanOrEqual(ACCOUNT_NAME_MAX);
    expect(name).not.toMatch(/\p{Cs}/u);
  });
});
