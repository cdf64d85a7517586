import { LAYOUT_SCHEMA_VERSION, type LayoutDocument, type LayoutElement } from './seat-layout.js';

/**
 * Generators for common coach layouts; they back the dashboard's bus templates, the demo data
 * and the test factories.
 */
export interface TemplateOptions {
  /** Seat rows per deck. */
  rows: number;
  /** '2+2' standard coach, '2+1' VIP coach. */
  pattern: '2+2' | '2+1';
  decks?: 1 | 2;
  /** numeric: 1, 2, 3...; letters: A1, A2, B1... (row letter, seat number). */
  labels?: 'numeric' | 'letters';
  /** Rows (0-based) whose seats are VIP class. */
  vipRows?: number[];
}

export function coachLayout(options: TemplateOptions): LayoutDocument {
  const decks = options.decks ?? 1;
  const left = 2;
  const right = options.pattern === '2+2' ? 2 : 1;
  const columns = left + 1 + right;
  const elements: LayoutElement[] = [];
  let counter = 0;
  for (let deck = 1; deck <= decks; deck++) {
    // Row 0 of the lower deck holds the driver and the door; the upper deck starts with stairs.
    if (deck === 1) {
      elements.push({ type: 'driver', x: 0, y: 0, width: 1, height: 1, rotation: 0, deck });
      elements.push({ type: 'door', x: columns - 1, y: 0, width: 1, height: 1, rotation: 0, deck });
    } else {
      elements.push({ type: 'stairs', x: columns - 1, y: 0, width: 1, height: 1, rotation: 0, deck });
    }
    for (let row = 0; row < options.rows; row++) {
      const y = row + 1;
      const seatColumns = [...Array(left).keys(), ...Array.from({ length: right }, (_, i) => left + 1 + i)];
      seatColumns.forEach((x, indexInRow) => {
        counter += 1;
        const seatNumber =
          options.labels === 'letters'
            ? `${String.fromCharCode(65 + (((deck - 1) * options.rows + row) % 26))}${indexInRow + 1}`
            : String(counter);
        elements.push({
          type: 'seat',
          x,
          y,
          width: 1,
          height: 1,
          rotation: 0,
          deck,
          seatId: `d${deck}-r${row + 1}-c${x + 1}`,
          seatNumber,
          seatClass: options.vipRows?.includes(row) || options.pattern === '2+1' ? 'VIP' : 'STANDARD',
        });
      });
      elements.push({ type: 'aisle', x: left, y, width: 1, height: 1, rotation: 0, deck });
    }
  }
  return { schemaVersion: LAYOUT_SCHEMA_VERSION, grid: { columns, rows: options.rows + 1, decks }, elements };
}

/** A layout a company starts a bus from (GET /dashboard/api/bus-templates). */
export interface BusTemplate {
  id: string;
  name_en: string;
  name_ar: string;
  description: string;
  options: TemplateOptions;
}

/** The templates the dashboard offers; the demo fleet is built from the same ones. */
export const BUS_TEMPLATES = {
  standard: {
    id: 'standard-2x2',
    name_en: 'Standard coach 2+2',
    name_ar: 'حافلة عادية 2+2',
    description: '12 rows of two plus two seats, numbered 1 to 48',
    options: { rows: 12, pattern: '2+2' },
  },
  vip: {
    id: 'vip-2x1',
    name_en: 'VIP coach 2+1',
    name_ar: 'حافلة VIP ‏2+1',
    description: '10 rows of two plus one VIP seats, numbered 1 to 30',
    options: { rows: 10, pattern: '2+1' },
  },
  doubleDeck: {
    id: 'double-deck-2x2',
    name_en: 'Two-deck coach 2+2',
    name_ar: 'حافلة بطابقين 2+2',
    description: 'two decks of 10 rows of two plus two seats, numbered 1 to 80; stairs on the upper deck',
    options: { rows: 10, pattern: '2+2', decks: 2 },
  },
  lettered: {
    id: 'lettered-2x2',
    name_en: 'Coach 2+2 with lettered rows',
    name_ar: 'حافلة 2+2 بصفوف مرقمة بالأحرف',
    description: '11 rows of two plus two seats labelled A1, A2... K4; rows A and B are VIP',
    options: { rows: 11, pattern: '2+2', labels: 'letters', vipRows: [0, 1] },
  },
} as const satisfies Record<string, BusTemplate>;

export function busTemplate(id: string): BusTemplate | undefined {
  return Object.values(BUS_TEMPLATES).find((template) => template.id === id);
}

/**
 * The most seats a generated legacy layout holds: one deck of 2+2 rows under the driver's row, in
 * the 40 grid rows a layout document may have (api/dashboard/fleet.openapi.ts LayoutDocumentSchema).
 */
export const LEGACY_LAYOUT_MAX_SEATS = 39 * 4;

/** Seat columns of a generated legacy row: two, the aisle (column 2), two. */
const LEGACY_SEAT_COLUMNS = [0, 1, 3, 4] as const;

/**
 * The canonical layout a bus imported before canonical layouts gets when it is first planned
 * (README "Company planning", Layouts): exactly `capacity` STANDARD seats labelled "1".."N", in
 * rows of 2+2 with an aisle under a row holding the driver and the door; the last row takes the
 * seats left over from the left. Seat ids follow coachLayout's (`d1-r<row>-c<column>`), so a
 * company redrawing the bus from a template keeps the seats travellers hold where they line up.
 * The migration Migration20261206185000_legacy_bus_layouts builds the same document in SQL.
 */
export function legacyLayout(capacity: number): LayoutDocument {
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > LEGACY_LAYOUT_MAX_SEATS) {
    throw new RangeError(`a legacy layout holds 1 to ${LEGACY_LAYOUT_MAX_SEATS} seats, not ${capacity}`);
  }
  const cell = { width: 1, height: 1, rotation: 0, deck: 1 } as const;
  const elements: LayoutElement[] = [
    { type: 'driver', x: 0, y: 0, ...cell },
    { type: 'door', x: 4, y: 0, ...cell },
  ];
  const rows = Math.ceil(capacity / LEGACY_SEAT_COLUMNS.length);
  for (let y = 1; y <= rows; y++) {
    LEGACY_SEAT_COLUMNS.forEach((x, indexInRow) => {
      const seat = (y - 1) * LEGACY_SEAT_COLUMNS.length + indexInRow + 1;
      if (seat > capacity) return;
      elements.push({
        type: 'seat',
        x,
        y,
        ...cell,
        seatId: `d1-r${y}-c${x + 1}`,
        seatNumber: String(seat),
        seatClass: 'STANDARD',
      });
    });
    elements.push({ type: 'aisle', x: 2, y, ...cell });
  }
  return { schemaVersion: LAYOUT_SCHEMA_VERSION, grid: { columns: 5, rows: rows + 1, decks: 1 }, elements };
}
