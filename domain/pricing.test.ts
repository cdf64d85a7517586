import { describe, expect, it } from 'vitest';
import { legFare } from './pricing.js';

describe('legFare', () => {
  // Search orders journeys by SQL round() (db/queries/search-sql.ts), the same rounding: half a pound up.
  it('a 15 000 SYP VIP fare over shares 0 → 3333 and 3333 → 10000 costs 5 000 and 10 001', () => {
    expect(legFare(15_000, 0, 3333)).toBe(5000); // 4 999.5
    expect(legFare(15_000, 3333, 10_000)).toBe(10_001); // 10 000.5
    expect(legFare(10_000, 0, 3333)).toBe(3333); // 3 333.3
  });

  it('refuses a leg that does not go forward', () => {
    expect(() => legFare(10_000, 5000, 5000)).toThrow(RangeError);
  });
});
