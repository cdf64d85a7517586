import { describe, expect, it } from 'vitest';
import { asciiEmail, EMAIL_MAX_LENGTH, EMAIL_PATTERN, readEmail } from './email-address.js';

const ARABIC_LETTERS = [
  ...Array.from({ length: 0x63a - 0x621 + 1 }, (_, i) => String.fromCharCode(0x621 + i)),
  ...Array.from({ length: 0x64a - 0x641 + 1 }, (_, i) => String.fromCharCode(0x641 + i)),
];

/** A small deterministic generator, so a failure names the same labels on every run. */
function seeded(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % below;
  };
}

describe('readEmail: the one rule of e-mail addresses', () => {
  it.each([
    ['an ASCII address', 'rana.khoury@example.com', 'rana.khoury@example.com'],
    ['the domain in lower case, the local part as written', 'Rana@Mail.Example.COM', 'Rana@mail.example.com'],
    ['a punycode top-level domain (Syria)', 'layla@example.xn--ogbpf8fl', 'layla@example.xn--ogbpf8fl'],
    ['a punycode label written in capitals', 'layla@Example.XN--OGBPF8FL', 'layla@example.xn--ogbpf8fl'],
    ['a top-level domain in Arabic letters', 'layla@example.سورية', 'layla@example.xn--ogbpf8fl'],
    ['a whole domain in Arabic letters', 'layla@مثال.إختبار', 'layla@xn--mgbh0fb.xn--kgbechtv'],
    ['an Arabic label with digits and a hyphen', 'a@وزارة-2.سورية', 'a@xn---2-btdi3be7m.xn--ogbpf8fl'],
  ])('takes %s', (_label, text, ascii) => {
    expect(readEmail(text)).toBe(ascii);
  });

  it.each([
    ['no @', 'rana.example.com'],
    ['a single-label domain', 'rana@localhost'],
    ['a digit in an ASCII top-level domain', 'rana@example.c0m'],
    ['a one-letter top-level domain', 'rana@example.c'],
    ['a space', 'rana khoury@example.com'],
    ['Arabic before the @', 'رنا@example.com'],
    ['an Arabic label ending with a hyphen', 'rana@مثال-.com'],
    ['an Arabic label starting with a digit', 'rana@2مثال.com'],
    ['Arabic and Latin letters in one label', 'rana@مثالa.com'],
    ['a script other than Arabic, unless written as xn--', 'rana@bücher.de'],
    ['tatweel (not a letter)', 'rana@مـثال.com'],
    ['more than 64 characters before the @', `${'a'.repeat(65)}@example.com`],
    ['two dots in a row', 'rana..k@example.com'],
    [`more than ${EMAIL_MAX_LENGTH} characters`, `a@${'b'.repeat(EMAIL_MAX_LENGTH)}.com`],
  ])('refuses %s', (_label, text) => {
    expect(readEmail(text)).toBeNull();
  });

  it('converts every label the pattern takes, and its ASCII form is taken again unchanged', () => {
    const next = seeded(20261207);
    const inner = [...ARABIC_LETTERS, ...'0123456789-'];
    const pick = (from: string[]) => from[next(from.length)]!;
    for (let run = 0; run < 3000; run++) {
      let label = pick(ARABIC_LETTERS);
      for (let extra = next(40); extra > 0; extra--) label += pick(inner);
      if (label.endsWith('-')) label += pick(ARABIC_LETTERS);
      for (const text of [`a@${label}.com`, `a@mail.${label}`, `a@${label}.${label}`]) {
        expect(EMAIL_PATTERN.test(text), text).toBe(true);
        const ascii = asciiEmail(text);
        expect(ascii, text).toMatch(/^a@[a-z0-9.-]+$/);
        expect(readEmail(ascii), text).toBe(ascii);
      }
    }
  });
});
