import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { floorMisses, type BenchResults, type Figure } from './results.js';

const targetText = (figure: Figure) =>
  figure.target ? `${figure.target.op} ${figure.target.value.toLocaleString('en')} ${figure.unit}` : '—';
const metText = (figure: Figure) =>
  figure.met === null
    ? ''
    : figure.met
      ? 'met'
      : floorMisses(figure)
        ? `**not met**; out of reach here: the floor's ${figure.floor!.toLocaleString('en')} ${figure.unit} misses it too`
        : '**not met**';

export interface TableRow {
  bench: string;
  figure: string;
  value: string;
  target: string;
  met: string;
}

/** The rows of `npm run bench`'s table for one benchmark: every figure it wrote, beside its target. */
export function rowsOf(name: string, dir: string, exitCode: number): TableRow[] {
  const file = join(dir, `${name}.json`);
  if (exitCode !== 0 || !existsSync(file)) {
    return [
      { bench: name, figure: '(run failed)', value: `exit ${exitCode}`, target: '', met: '**not met**' },
    ];
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  return results.figures.map((figure) => ({
    bench: name,
    figure: figure.name,
    value: `${figure.value.toLocaleString('en')} ${figure.unit}`,
    target: targetText(figure),
    met: metText(figure),
  }));
}

/** One Markdown table of every row, columns padded (as the README's tables are). */
export function markdownTable(rows: TableRow[]): string {
  const header = ['Benchmark', 'Figure', 'Value', 'Target', 'Met'];
  const lines = rows.map((row) => [row.bench, row.figure, row.value, row.target, row.met]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n');
}
