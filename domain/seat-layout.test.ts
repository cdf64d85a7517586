import { describe, expect, it } from 'vitest';
import { coachLayout } from './layout-templates.js';
import {
  LAYOUT_SCHEMA_VERSION,
  customerLayoutView,
  layoutSeats,
  seatLabelsMoved,
  validateLayout,
  type LayoutDocument,
  type LayoutElement,
} from './seat-layout.js';

const seat = (
  x: number,
  y: number,
  seatId: string,
  seatNumber: string,
  extra: Partial<LayoutElement> = {},
): LayoutElement => ({
  type: 'seat',
  x,
  y,
  width: 1,
  height: 1,
  rotation: 0,
  deck: 1,
  seatId,
  seatNumber,
  ...extra,
});

const layout = (elements: LayoutElement[], grid: Partial<LayoutDocument['grid']> = {}): LayoutDocument => ({
  schemaVersion: LAYOUT_SCHEMA_VERSION,
  grid: { columns: 4, rows: 3, decks: 1, ...grid },
  elements,
});

const codes = (document: LayoutDocument) => validateLayout(document).map((issue) => issue.code);

describe('validateLayout', () => {
  it('accepts a small layout with seats, an aisle and a driver', () => {
    const document = layout([
      { type: 'driver', x: 0, y: 0, width: 1, height: 1, rotation: 0, deck: 1 },
      seat(0, 1, 's1', '1'),
      seat(1, 1, 's2', '2'),
      { type: 'aisle', x: 2, y: 1, width: 1, height: 2, rotation: 0, deck: 1 },
      seat(3, 1, 's3', '3', { rotation: 90 }),
    ]);
    expect(validateLayout(document)).toEqual([]);
  });

  it('refuses two elements on the same cell and names the element it overlaps', () => {
    const issues = validateLayout(
      layout([
        seat(0, 0, 's1', '1'),
        { type: 'table', x: 0, y: 0, width: 2, height: 1, rotation: 0, deck: 1 },
      ]),
    );
    expect(issues).toEqual([{ code: 'ELEMENTS_OVERLAP', message: 'element overlaps element 0', element: 1 }]);
  });

  it('lets the same cell be used on each deck of a double-decker', () => {
    const document = layout([seat(0, 0, 'lower', '1'), seat(0, 0, 'upper', '2', { deck: 2 })], { decks: 2 });
    expect(validateLayout(document)).toEqual([]);
  });

  it.each([
    ['past the right edge', { x: 3, width: 2 }],
    ['past the bottom edge', { y: 2, height: 2 }],
    ['at a negative position', { x: -1 }],
    ['with zero width', { width: 0 }],
    ['with a fractional position', { y: 0.5 }],
  ])('refuses an element %s', (_case, change) => {
    const issues = validateLayout(layout([seat(0, 0, 's1', '1'), seat(1, 0, 's2', '2', change)]));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'ELEMENT_OUT_OF_GRID', element: 1 }));
  });

  it.each([
    ['on a deck the bus does not have', { deck: 2 }],
    ['on deck zero', { deck: 0 }],
  ])('refuses an element %s as a deck that does not exist', (_case, change) => {
    const issues = validateLayout(layout([seat(0, 0, 's1', '1'), seat(1, 0, 's2', '2', change)]));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'DECK_NOT_FOUND', element: 1 }));
  });

  it('refuses a repeated seatId even when the seat numbers differ', () => {
    const issues = validateLayout(layout([seat(0, 0, 'same', '1'), seat(1, 0, 'same', '2')]));
    expect(issues).toEqual([expect.objectContaining({ code: 'SEAT_ID_DUPLICATE', element: 1 })]);
  });

  it('refuses a repeated seatNumber, ignoring surrounding spaces', () => {
    const issues = validateLayout(layout([seat(0, 0, 's1', 'A1'), seat(1, 0, 's2', ' A1 ')]));
    expect(issues).toEqual([expect.objectContaining({ code: 'SEAT_NUMBER_DUPLICATE', element: 1 })]);
  });

  it.each([
    ['no seatId', { seatId: undefined }],
    ['a blank seatId', { seatId: '   ' }],
    ['no seatNumber', { seatNumber: undefined }],
    ['a blank seatNumber', { seatNumber: '' }],
  ])('refuses a seat with %s', (_case, change) => {
    const issues = validateLayout(layout([seat(0, 0, 's1', '1'), seat(1, 0, 's2', '2', change)]));
    expect(issues).toEqual([expect.objectContaining({ code: 'SEAT_IDENTITY_MISSING', element: 1 })]);
  });

  it('does not ask non-seat elements for a seat identity', () => {
    const document = layout([
      seat(0, 0, 's1', '1'),
      { type: 'door', x: 3, y: 0, width: 1, height: 1, rotation: 0, deck: 1 },
    ]);
    expect(validateLayout(document)).toEqual([]);
  });

  it('refuses a rotation other than a quarter turn', () => {
    const issues = validateLayout(
      layout([seat(0, 0, 's1', '1', { rotation: 45 as LayoutElement['rotation'] })]),
    );
    expect(issues).toEqual([expect.objectContaining({ code: 'ROTATION_INVALID', element: 0 })]);
  });

  it('refuses a layout without seats', () => {
    expect(codes(layout([]))).toEqual(['NO_SEATS']);
    expect(
      codes(layout([{ type: 'driver', x: 0, y: 0, width: 1, height: 1, rotation: 0, deck: 1 }])),
    ).toEqual(['NO_SEATS']);
  });

  it.each([
    ['zero columns', { columns: 0 }],
    ['fractional rows', { rows: 2.5 }],
    ['three decks', { decks: 3 }],
  ])('refuses a grid with %s', (_case, grid) => {
    expect(codes(layout([seat(0, 0, 's1', '1')], grid))).toEqual(['GRID_INVALID']);
  });

  it('refuses an unknown schemaVersion', () => {
    expect(codes({ ...layout([seat(0, 0, 's1', '1')]), schemaVersion: 2 })).toEqual([
      'SCHEMA_VERSION_UNSUPPORTED',
    ]);
  });
});

describe('coachLayout templates are valid layouts', () => {
  it('a 2+2 coach has four seats per row and an aisle between the pairs', () => {
    const document = coachLayout({ rows: 10, pattern: '2+2' });
    expect(validateLayout(document)).toEqual([]);
    expect(document.grid).toEqual({ columns: 5, rows: 11, decks: 1 });
    const seats = layoutSeats(document);
    expect(seats).toHaveLength(40);
    expect(seats.map((s) => s.seatNumber)).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
    expect(new Set(seats.map((s) => s.seatClass))).toEqual(new Set(['STANDARD']));
  });

  it('a 2+1 coach has three VIP seats per row', () => {
    const document = coachLayout({ rows: 8, pattern: '2+1' });
    expect(validateLayout(document)).toEqual([]);
    const seats = layoutSeats(document);
    expect(seats).toHaveLength(24);
    expect(seats.every((s) => s.seatClass === 'VIP')).toBe(true);
  });

  it('a double-decker with letter labels numbers rows on across decks', () => {
    const document = coachLayout({ rows: 6, pattern: '2+2', decks: 2, labels: 'letters', vipRows: [0] });
    expect(validateLayout(document)).toEqual([]);
    const seats = layoutSeats(document);
    expect(seats).toHaveLength(48);
    expect(seats.filter((s) => s.deck === 2)).toHaveLength(24);
    expect(seats.slice(0, 4).map((s) => s.seatNumber)).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(seats.find((s) => s.deck === 2)?.seatNumber).toBe('G1');
    expect(seats.filter((s) => s.seatClass === 'VIP').map((s) => s.seatNumber)).toEqual([
      'A1',
      'A2',
      'A3',
      'A4',
      'G1',
      'G2',
      'G3',
      'G4',
    ]);
    expect(document.elements.filter((e) => e.type === 'stairs')).toEqual([
      expect.objectContaining({ deck: 2 }),
    ]);
  });
});

describe('customerLayoutView', () => {
  it('removes management notes and keeps everything a traveller needs', () => {
    const document = layout([
      seat(0, 0, 's1', '1', { notes: 'broken recline, do not sell', seatClass: 'VIP' }),
      { type: 'toilet', x: 3, y: 2, width: 1, height: 1, rotation: 0, deck: 1, notes: 'out of order' },
    ]);
    const view = customerLayoutView(document);
    expect(JSON.stringify(view)).not.toContain('notes');
    expect(view).toEqual({
      schemaVersion: LAYOUT_SCHEMA_VERSION,
      grid: document.grid,
      elements: [
        {
          type: 'seat',
          x: 0,
          y: 0,
          width: 1,
          height: 1,
          rotation: 0,
          deck: 1,
          seatId: 's1',
          seatNumber: '1',
          seatClass: 'VIP',
        },
        { type: 'toilet', x: 3, y: 2, width: 1, height: 1, rotation: 0, deck: 1 },
      ],
    });
    expect(document.elements[0]?.notes).toBe('broken recline, do not sell');
  });
});

describe('seatLabelsMoved', () => {
  const sold = [
    { seatId: 's1', seatNumber: '1' },
    { seatId: 's2', seatNumber: '2' },
  ];

  it('allows the same labels, a sold seat renamed to a fresh label, and its old label left unused', () => {
    expect(seatLabelsMoved(layout([seat(0, 0, 's1', '1'), seat(1, 0, 's2', '2')]), sold)).toEqual([]);
    expect(seatLabelsMoved(layout([seat(0, 0, 's1', '1A'), seat(1, 0, 's2', '2')]), sold)).toEqual([]);
    expect(seatLabelsMoved(layout([seat(1, 0, 's2', '2')]), sold)).toEqual([]);
  });

  it('names each label in use that the layout gives to another seat, once, sorted', () => {
    const swapped = layout([seat(0, 0, 's1', '2'), seat(1, 0, 's2', '1')]);
    expect(seatLabelsMoved(swapped, [...sold, ...sold])).toEqual(['1', '2']);
    const renamedAndReused = layout([seat(0, 0, 's1', '1A'), seat(1, 0, 's3', '1'), seat(2, 0, 's2', '2')]);
    expect(seatLabelsMoved(renamedAndReused, sold)).toEqual(['1']);
  });
});
