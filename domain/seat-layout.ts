/**
 * Bus layout documents and their validation. A layout is a grid per deck with positioned
 * elements; seats carry a stable seatId (never changes) and a passenger-visible seatNumber (a
 * label the company may change, such as "A1" or "12").
 */
export const LAYOUT_SCHEMA_VERSION = 1;

export type ElementKind = 'seat' | 'aisle' | 'door' | 'driver' | 'stairs' | 'toilet' | 'table';
export type SeatClass = 'STANDARD' | 'VIP';

export interface LayoutElement {
  type: ElementKind;
  x: number;
  y: number;
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  deck: number;
  seatId?: string;
  seatNumber?: string;
  seatClass?: SeatClass;
  /** Management note; internal, hidden from the customer view. */
  notes?: string;
}

export interface LayoutDocument {
  schemaVersion: number;
  grid: { columns: number; rows: number; decks: number };
  elements: LayoutElement[];
}

export interface LayoutIssue {
  code: string;
  message: string;
  element?: number;
}

export interface LayoutSeatRow {
  seatId: string;
  seatNumber: string;
  deck: number;
  seatClass: SeatClass;
}

const ROTATIONS = new Set([0, 90, 180, 270]);

export function validateLayout(document: LayoutDocument): LayoutIssue[] {
  const issues: LayoutIssue[] = [];
  if (document.schemaVersion !== LAYOUT_SCHEMA_VERSION) {
    issues.push({
      code: 'SCHEMA_VERSION_UNSUPPORTED',
      message: `schemaVersion must be ${LAYOUT_SCHEMA_VERSION}`,
    });
  }
  const { columns, rows, decks } = document.grid;
  if (![columns, rows, decks].every((n) => Number.isInteger(n) && n > 0) || decks > 2) {
    issues.push({
      code: 'GRID_INVALID',
      message: 'grid needs positive integer columns and rows, and 1 or 2 decks',
    });
    return issues;
  }
  const seatIds = new Set<string>();
  const seatNumbers = new Set<string>();
  const occupied = new Map<string, number>();
  document.elements.forEach((element, index) => {
    const { x, y, width, height, deck } = element;
    const fits =
      [x, y, width, height, deck].every(Number.isInteger) &&
      width > 0 &&
      height > 0 &&
      x >= 0 &&
      y >= 0 &&
      x + width <= columns &&
      y + height <= rows &&
      deck >= 1 &&
      deck <= decks;
    if (!fits) {
      issues.push({
        code: 'ELEMENT_OUT_OF_GRID',
        message: 'element lies outside the grid or its deck',
        element: index,
      });
      return;
    }
    if (!ROTATIONS.has(element.rotation)) {
      issues.push({
        code: 'ROTATION_INVALID',
        message: 'rotation must be 0, 90, 180 or 270',
        element: index,
      });
    }
    for (let cx = x; cx < x + width; cx++) {
      for (let cy = y; cy < y + height; cy++) {
        const cell = `${deck}:${cx}:${cy}`;
        if (occupied.has(cell)) {
          issues.push({
            code: 'ELEMENTS_OVERLAP',
            message: `element overlaps element ${occupied.get(cell)}`,
            element: index,
          });
          return;
        }
        occupied.set(cell, index);
      }
    }
    if (element.type !== 'seat') return;
    const seatId = element.seatId?.trim();
    const seatNumber = element.seatNumber?.trim();
    if (!seatId || !seatNumber) {
      issues.push({
        code: 'SEAT_IDENTITY_MISSING',
        message: 'a seat needs seatId and seatNumber',
        element: index,
      });
      return;
    }
    if (seatIds.has(seatId))
      issues.push({ code: 'SEAT_ID_DUPLICATE', message: `seatId ${seatId} repeats`, element: index });
    if (seatNumbers.has(seatNumber)) {
      issues.push({
        code: 'SEAT_NUMBER_DUPLICATE',
        message: `seatNumber ${seatNumber} repeats`,
        element: index,
      });
    }
    seatIds.add(seatId);
    seatNumbers.add(seatNumber);
  });
  if (seatIds.size === 0) issues.push({ code: 'NO_SEATS', message: 'a layout needs at least one seat' });
  return issues;
}

export function layoutSeats(document: LayoutDocument): LayoutSeatRow[] {
  return document.elements
    .filter((element) => element.type === 'seat' && element.seatId && element.seatNumber)
    .map((element) => ({
      seatId: element.seatId!,
      seatNumber: element.seatNumber!,
      deck: element.deck,
      seatClass: element.seatClass ?? 'STANDARD',
    }));
}

/** The layout as a traveller may see it: management notes removed. */
export function customerLayoutView(document: LayoutDocument): LayoutDocument {
  return {
    schemaVersion: document.schemaVersion,
    grid: document.grid,
    elements: document.elements.map(({ notes: _notes, ...visible }) => visible),
  };
}
