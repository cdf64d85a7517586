import { describe, expect, it } from 'vitest';
import { legFare } from './pricing.js';

describe('legFare', () => {
  // Search orders journeys by the same rule in SQL (db/queries/search-sql.ts fareSql): the fare up to
  // each call rounded half a pound up, a leg the difference.
  it('a 15 000 SYP VIP fare over shares 0 → 3333 and 3333 → 10000 costs 5 000 and 10 000', () => {
    expect(legFare(15_000, 0, 3333)).toBe(5000); // 4 999.5 up to the second call
    expect(legFare(15_000, 3333, 10_000)).toBe(10_000); // 15 000 − 5 000
    expect(legFare(10_000, 0, 3333)).toBe(3333); // 3 333.3
  });

  it('consecutive stretches of one trip add up to the fare over them all (review 445)', () => {
    const shares = [0, 3333, 6667, 10_000];
    for (const fare of [35_000, 1_000, 15_000, 1, 99_999_999]) {
      const stretches = shares.slice(1).map((alight, index) => legFare(fare, shares[index]!, alight));
      expect({ fare, sum: stretches.reduce((a, b) => a + b, 0) }).toEqual({ fare, sum: fare });
      expect(legFare(fare, 0, 6667)).toBe(stretches[0]! + stretches[1]!);
    }
    expect([legFare(35_000, 0, 3333), legFare(35_000, 3333, 6667), legFare(35_000, 6667, 10_000)]).toEqual([
      11_666, 11_669, 11_665,
    ]);
  });

  it('refuses a leg that does not go forward', () => {
    expect(() => legFare(10_000, 5000, 5000)).toThrow(RangeError);
  });
});
