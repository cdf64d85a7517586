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

/** What the checks have seen of the elements before the current one. */
interface LayoutScan {
  grid: LayoutDocument['grid'];
  seatIds: Set<string>;
  seatNumbers: Set<string>;
  /** `deck:x:y` → index of the element covering that cell. */
  occupied: Map<string, number>;
}

function schemaVersionIssue(document: LayoutDocument): LayoutIssue | null {
  if (document.schemaVersion === LAYOUT_SCHEMA_VERSION) return null;
  return { code: 'SCHEMA_VERSION_UNSUPPORTED', message: `schemaVersion must be ${LAYOUT_SCHEMA_VERSION}` };
}

function gridIssue({ columns, rows, decks }: LayoutDocument['grid']): LayoutIssue | null {
  if ([columns, rows, decks].every((n) => Number.isInteger(n) && n > 0) && decks <= 2) return null;
  return { code: 'GRID_INVALID', message: 'grid needs positive integer columns and rows, and 1 or 2 decks' };
}

function fitsGrid(element: LayoutElement, grid: LayoutDocument['grid']): boolean {
  const { x, y, width, height } = element;
  return (
    [x, y, width, height].every(Number.isInteger) &&
    width > 0 &&
    height > 0 &&
    x >= 0 &&
    y >= 0 &&
    x + width <= grid.columns &&
    y + height <= grid.rows
  );
}

const deckExists = (deck: number, grid: LayoutDocument['grid']) =>
  Number.isInteger(deck) && deck >= 1 && deck <= grid.decks;

/** Claims the element's cells in order; the first cell another element covers is an overlap. */
function overlapIssue(element: LayoutElement, index: number, scan: LayoutScan): LayoutIssue | null {
  const { x, y, width, height, deck } = element;
  for (let cx = x; cx < x + width; cx++) {
    for (let cy = y; cy < y + height; cy++) {
      const cell = `${deck}:${cx}:${cy}`;
      if (scan.occupied.has(cell)) {
        return {
          code: 'ELEMENTS_OVERLAP',
          message: `element overlaps element ${scan.occupied.get(cell)}`,
          element: index,
        };
      }
      scan.occupied.set(cell, index);
    }
  }
  return null;
}

/** A seat needs a seatId and a seatNumber, each used by no earlier seat. */
function seatIdentityIssues(element: LayoutElement, index: number, scan: LayoutScan): LayoutIssue[] {
  const seatId = element.seatId?.trim();
  const seatNumber = element.seatNumber?.trim();
  if (!seatId || !seatNumber) {
    return [{ code: 'SEAT_IDENTITY_MISSING', message: 'a seat needs seatId and seatNumber', element: index }];
  }
  const issues: LayoutIssue[] = [];
  if (scan.seatIds.has(seatId))
    issues.push({ code: 'SEAT_ID_DUPLICATE', message: `seatId ${seatId} repeats`, element: index });
  if (scan.seatNumbers.has(seatNumber)) {
    issues.push({
      code: 'SEAT_NUMBER_DUPLICATE',
      message: `seatNumber ${seatNumber} repeats`,
      element: index,
    });
  }
  scan.seatIds.add(seatId);
  scan.seatNumbers.add(seatNumber);
  return issues;
}

/** One element's issues, in check order: its deck exists, inside the grid, rotation, overlap, then a seat's identity. */
function elementIssues(element: LayoutElement, index: number, scan: LayoutScan): LayoutIssue[] {
  if (!deckExists(element.deck, scan.grid)) {
    return [{ code: 'DECK_NOT_FOUND', message: `the layout has no deck ${element.deck}`, element: index }];
  }
  if (!fitsGrid(element, scan.grid)) {
    return [
      { code: 'ELEMENT_OUT_OF_GRID', message: 'element lies outside the grid or its deck', element: index },
    ];
  }
  const issues: LayoutIssue[] = [];
  if (!ROTATIONS.has(element.rotation)) {
    issues.push({ code: 'ROTATION_INVALID', message: 'rotation must be 0, 90, 180 or 270', element: index });
  }
  const overlap = overlapIssue(element, index, scan);
  if (overlap) return [...issues, overlap];
  if (element.type !== 'seat') return issues;
  return [...issues, ...seatIdentityIssues(element, index, scan)];
}

/**
 * Every problem of a layout document, in order: the schema version, the grid (nothing else is
 * checked on a broken grid), each element in turn, and at least one seat.
 */
export function validateLayout(document: LayoutDocument): LayoutIssue[] {
  const issues: LayoutIssue[] = [];
  const version = schemaVersionIssue(document);
  if (version) issues.push(version);
  const grid = gridIssue(document.grid);
  if (grid) return [...issues, grid];
  const scan: LayoutScan = {
    grid: document.grid,
    seatIds: new Set(),
    seatNumbers: new Set(),
    occupied: new Map(),
  };
  document.elements.forEach((element, index) => issues.push(...elementIssues(element, index, scan)));
  if (scan.seatIds.size === 0) issues.push({ code: 'NO_SEATS', message: 'a layout needs at least one seat' });
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

/** A seat label travellers hold for a seat: printed on a ticket, or shown for a held or sold seat. */
export interface SeatLabelInUse {
  seatId: string;
  seatNumber: string;
}

/**
 * The labels in use that `document` gives to another seat, each once, sorted. A ticket keeps the
 * label it was sold with (it is signed into the boarding credential), so a layout may rename a sold
 * seat to a fresh label, but may not hand the old label to a different seat while that ticket is
 * live: two travellers of one trip would then hold the same seat number.
 */
export function seatLabelsMoved(document: LayoutDocument, inUse: SeatLabelInUse[]): string[] {
  const seatIdOfLabel = new Map(layoutSeats(document).map((seat) => [seat.seatNumber, seat.seatId]));
  const moved = inUse.filter((label) => {
    const seatId = seatIdOfLabel.get(label.seatNumber);
    return seatId !== undefined && seatId !== label.seatId;
  });
  return [...new Set(moved.map((label) => label.seatNumber))].sort();
}

/** The layout as a traveller may see it: management notes removed. */
export function customerLayoutView(document: LayoutDocument): LayoutDocument {
  return {
    schemaVersion: document.schemaVersion,
    grid: document.grid,
    elements: document.elements.map(({ notes: _notes, ...visible }) => visible),
  };
}
