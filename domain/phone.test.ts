import { describe, expect, it } from 'vitest';
import {
  DEMO_PHONE_EXAMPLE,
  INTERNATIONAL_PHONE_PATTERN,
  isReservedDemoPhone,
  normalisePhone,
  PHONE_INPUT_PATTERN,
} from './phone.js';

describe('normalisePhone (E.164)', () => {
  it.each([
    ['+963944123456', '+963944123456'],
    ['+963 944 123 456', '+963944123456'],
    ['+963-944-123-456', '+963944123456'],
    ['(+963) 944.123.456', '+963944123456'],
    ['00963944123456', '+963944123456'],
    ['0944123456', '+963944123456'],
    ['0944 123 456', '+963944123456'],
    ['+963 0944 123 456', '+963944123456'],
    ['+963 11 221 0001', '+963112210001'],
    ['+963900000001', '+963900000001'],
    ['+961 3 123 456', '+9613123456'],
    ['0090 532 123 4567', '+905321234567'],
    ['  +962791234567  ', '+962791234567'],
  ])('reads %s as %s', (input, expected) => {
    expect(normalisePhone(input)).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['only a plus', '+'],
    ['letters', '+963 94A 123 456'],
    ['no international or trunk prefix', '944123456'],
    ['a country code starting with 0', '+0963944123456'],
    ['a Syrian number that is too short', '+9639441234'],
    ['a Syrian number that is too long', '+9639441234567'],
    ['a foreign number that is too short', '+1234567'],
    ['more than 15 digits', '+1234567890123456'],
    ['two plus signs', '++963944123456'],
    ['a plus in the middle', '0944+123456'],
    ['an extension', '+963944123456;ext=1'],
    ['a Syrian national number starting with 0 after the trunk 0', '+963000000000'],
    ['a Syrian national number starting with 0', '+96300000000'],
  ])('refuses %s', (_case, input) => {
    expect(normalisePhone(input)).toBeNull();
  });
});

describe('isReservedDemoPhone', () => {
  it('recognises the reserved +963900 range only', () => {
    expect(isReservedDemoPhone('+963900000001')).toBe(true);
    expect(isReservedDemoPhone('+963900123456')).toBe(true);
    expect(isReservedDemoPhone('+963990000001')).toBe(false);
    expect(isReservedDemoPhone('+963944123456')).toBe(false);
  });

  it('applies to the normalised form, so national spellings of a reserved number count too', () => {
    expect(isReservedDemoPhone(normalisePhone('0900 000 002')!)).toBe(true);
    expect(isReservedDemoPhone(normalisePhone('00963 900 000 003')!)).toBe(true);
  });
});

describe('PHONE_INPUT_PATTERN', () => {
  it('matches only text normalisePhone reads', () => {
    const alphabet = ['0', '1', '3', '6', '9', '4', '+', ' ', '-', '(', ')', '.'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let matched = 0;
    for (let index = 0; index < 50_000; index += 1) {
      let text = ['+963', '00963', '0', '+', ''][Math.floor(next() * 5)]!;
      const length = 4 + Math.floor(next() * 14);
      for (let char = 0; char < length; char += 1) text += alphabet[Math.floor(next() * alphabet.length)];
      if (!PHONE_INPUT_PATTERN.test(text)) continue;
      matched += 1;
      expect(normalisePhone(text), text).not.toBeNull();
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('reads its own E.164 answer as the same number (the API normalises twice)', () => {
    for (const text of [
      '+963944123456',
      '+963 0944 123 456',
      '0944123456',
      '+961 3 123 456',
      '+963000000000',
    ]) {
      const once = normalisePhone(text);
      expect(once === null ? null : normalisePhone(once), text).toBe(once);
    }
  });

  it('matches the spellings people type, and the demo example', () => {
    for (const text of [
      '+963944123456',
      '(+963) 944.123.456',
      '00963944123456',
      '0944 123 456',
      DEMO_PHONE_EXAMPLE,
    ])
      expect(PHONE_INPUT_PATTERN.test(text), text).toBe(true);
    expect(isReservedDemoPhone(DEMO_PHONE_EXAMPLE)).toBe(true);
    for (const text of [
      '0',
      '944123456',
      '+963 94A 123 456',
      '+0963944123456',
      '٠٩٤٤١٢٣٤٥٦',
      '+963000000000',
    ])
      expect(PHONE_INPUT_PATTERN.test(text), text).toBe(false);
  });
});

describe("INTERNATIONAL_PHONE_PATTERN (a person's phone on the booking routes)", () => {
  it('matches + and digits that normalisePhone reads, and only those', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let matched = 0;
    for (let index = 0; index < 50_000; index += 1) {
      let text = ['+963', '+9630', '+96300', '+', '+0'][Math.floor(next() * 5)]!;
      const length = 4 + Math.floor(next() * 12);
      for (let char = 0; char < length; char += 1) text += String(Math.floor(next() * 10));
      const readable = normalisePhone(text) !== null;
      expect(INTERNATIONAL_PHONE_PATTERN.test(text), text).toBe(readable);
      if (readable) matched += 1;
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('takes the + forms, the Syrian trunk 0 after +963 too, and refuses the rest', () => {
    for (const text of ['+963944123456', '+9630944123456', '+96112345678', DEMO_PHONE_EXAMPLE])
      expect(INTERNATIONAL_PHONE_PATTERN.test(text), text).toBe(true);
    expect(normalisePhone('+9630944123456')).toBe('+963944123456');
    for (const text of [
      '0944123456',
      '00963944123456',
      '+0944123456',
      '+963 944 123 456',
      '+96300944123456',
      '+9631234567',
      '+٩٦٣٩٤٤١٢٣٤٥٦',
    ])
      expect(INTERNATIONAL_PHONE_PATTERN.test(text), text).toBe(false);
  });
});
