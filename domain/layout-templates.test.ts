import { describe, expect, it } from 'vitest';
import { coachLayout, LEGACY_LAYOUT_MAX_SEATS, legacyLayout } from './layout-templates.js';
import { layoutSeats, validateLayout } from './seat-layout.js';

describe('legacyLayout', () => {
  it('holds exactly the capacity in valid STANDARD seats labelled 1..N, rows of 2+2 with an aisle', () => {
    for (const capacity of [1, 2, 3, 4, 5, 33, 47, LEGACY_LAYOUT_MAX_SEATS]) {
      const document = legacyLayout(capacity);
      expect(validateLayout(document), `capacity ${capacity}`).toEqual([]);
      const seats = layoutSeats(document);
      expect(seats.map((seat) => seat.seatNumber)).toEqual(
        Array.from({ length: capacity }, (_, index) => String(index + 1)),
      );
      expect(new Set(seats.map((seat) => seat.seatClass))).toEqual(new Set(['STANDARD']));
      expect(document.grid).toEqual({ columns: 5, rows: Math.ceil(capacity / 4) + 1, decks: 1 });
      // An aisle in column 2 of every seat row, and no seat in it.
      const aisles = document.elements.filter((element) => element.type === 'aisle');
      expect(aisles.map((aisle) => [aisle.x, aisle.y])).toEqual(
        Array.from({ length: Math.ceil(capacity / 4) }, (_, index) => [2, index + 1]),
      );
      expect(document.elements.some((element) => element.type === 'seat' && element.x === 2)).toBe(false);
    }
  });

  it('fills the last row from the left with the seats left over', () => {
    const seats = legacyLayout(33).elements.filter((element) => element.type === 'seat');
    expect(seats.at(-1)).toMatchObject({ x: 0, y: 9, seatId: 'd1-r9-c1', seatNumber: '33' });
    expect(seats.filter((seat) => seat.y === 8).map((seat) => seat.x)).toEqual([0, 1, 3, 4]);
  });

  it('is the standard 2+2 template when the capacity fills whole rows', () => {
    expect(legacyLayout(48)).toEqual(coachLayout({ rows: 12, pattern: '2+2' }));
  });

  it('refuses a capacity no generated layout holds', () => {
    for (const capacity of [0, -1, 2.5, LEGACY_LAYOUT_MAX_SEATS + 1]) {
      expect(() => legacyLayout(capacity)).toThrow(RangeError);
    }
  });
});
