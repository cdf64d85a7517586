import { describe, expect, it } from 'vitest';
import { nameKey } from '../../domain/trip-planning.js';
import { useTestApp } from '../support/harness.js';

/**
 * The database's name_key (Migration20261209000000_name_key), which the list searches fold names
 * with, answers what domain/trip-planning.ts nameKey answers, which matches city names (README
 * "Network"): the two must never drift, or a name the network calls the same would not be found.
 */
describe('name_key in the database folds names exactly as nameKey', () => {
  const app = useTestApp();

  const inDatabase = async (inputs: string[]) =>
    (
      await app.db.query<{ key: string }>(
        `select name_key(x) as key from unnest($1::text[]) with ordinality as typed(x, n) order by n`,
        [inputs],
      )
    ).map((row) => row.key);

  it('reduces the names people type another way to one key, as nameKey does', async () => {
    const table: [string, string][] = [
      ['أحمد إبراهيم الحمزة مصطفى', 'احمد ابراهيم الحمزه مصطفي'],
      ['احمد ابراهيم الحمزه مصطفي', 'احمد ابراهيم الحمزه مصطفي'],
      ['أَحْمَد', 'احمد'],
      ['أحـمد', 'احمد'],
      ['آمنة', 'امنه'],
      ['ٱلرَّحمن', 'الرحمن'],
      ['مؤمن', 'مومن'],
      ['هانئ', 'هاني'],
      ['یوسف کرم', 'يوسف كرم'],
      ['شركة الأهلية', 'شركه الاهليه'],
      ['دمـــشق', 'دمشق'],
      ['ﻷ', 'لا'],
      ['Ḥomṣ', 'homs'],
      ['Deir ez-Zôr', 'deir ez-zor'],
      ['RAMI Haddad', 'rami haddad'],
      ['ＲＡＭＩ', 'rami'],
      ['ra\u200bmi\u200f', 'rami'],
      ['\u00a0 Rami \t\n Haddad\u3000', 'rami haddad'],
      ['50%_off', '50%_off'],
      ['％＿', '%_'],
      ['\u064e\u0640', ''],
      ['', ''],
    ];
    const keys = await inDatabase(table.map(([typed]) => typed));
    expect(keys).toEqual(table.map(([typed]) => nameKey(typed)));
    expect(keys).toEqual(table.map(([, key]) => key));
  });

  it('agrees with nameKey on every letter, mark, space and format character of the scripts names are written in', async () => {
    const codePoints: number[] = [];
    const blocks: [number, number][] = [
      [0x0001, 0x052f], // Latin, IPA, combining marks, Greek, Cyrillic
      [0x0600, 0x08ff], // Arabic and its supplements, Syriac
      [0x1e00, 0x1eff], // Latin Extended Additional (Ḥomṣ)
      [0x2000, 0x206f], // spaces, invisible format characters, punctuation
      [0x3000, 0x3000],
      [0xfb50, 0xfdff], // Arabic presentation forms A
      [0xfe70, 0xfeff], // Arabic presentation forms B
      [0xff00, 0xffef], // full-width forms
    ];
    for (const [from, to] of blocks) for (let c = from; c <= to; c++) codePoints.push(c);
    // Every invisible format character and white space JavaScript knows, wherever it is. Each alone
    // between letters, then leading, doubled and trailing (never last in a word after a letter: there
    // JavaScript lowers a Greek capital sigma to the final form, a rule of Greek no Syrian name meets).
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const character = String.fromCodePoint(c);
      if (/[\p{Cf}\s]/u.test(character) && !codePoints.includes(c)) codePoints.push(c);
    }
    const inputs = codePoints.flatMap((c) => {
      const character = String.fromCodePoint(c);
      const codePoint = `U+${c.toString(16).padStart(4, '0')}`;
      return [`a${character}b`, `${character}x${character}${character}y ${character}`].map((typed) => ({
        codePoint,
        typed,
      }));
    });
    const keys = await inDatabase(inputs.map((input) => input.typed));
    const differing = inputs
      .map((input, i) => ({ ...input, database: keys[i], nameKey: nameKey(input.typed) }))
      .filter((row) => row.database !== row.nameKey);
    expect(differing).toEqual([]);
  });
});
