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
