import type { DocumentLocale } from '../../../domain/documents.js';
import type { ReportCharts } from '../../../domain/reports.js';
import { numberFormatsOf } from '../format.js';
import { trusted, escapeHtml, type SafeHtml } from '../html.js';

/**
 * The charts of a report PDF as inline SVG (vector, drawn by the browser that prints the page):
 * net revenue per day as columns, occupancy per route as bars. In Arabic the charts read right to
 * left like the page: the first day on the right, bars growing leftwards from the route names.
 */
const WIDTH = 640;
const HEIGHT = 260;
const AXIS = '#8a96a3';
const BAR = '#1f5f8b';
const TEXT = '#1b1f24';

const numbers = numberFormatsOf({ notation: 'compact', maximumFractionDigits: 1 });

/** A ceiling for the axis: 1, 2 or 5 times a power of ten, at least the largest value. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

const text = (x: number, y: number, anchor: string, content: string, size = 11) =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" text-anchor="${anchor}" font-size="${size}" fill="${TEXT}">${escapeHtml(content)}</text>`;

/** Coordinates are laid out left to right in both languages (the mirroring is done here, not by bidi). */
function svg(label: string, body: string[]): SafeHtml {
  return trusted(
    `<svg class="chart" role="img" aria-label="${escapeHtml(label)}" xmlns="http://www.w3.org/2000/svg" ` +
      `viewBox="0 0 ${WIDTH} ${HEIGHT}" direction="ltr" style="direction:ltr">${body.join('')}</svg>`,
  );
}

/** The charts a report PDF can print. */
type ChartName = keyof ReportCharts;

/** Every chart is drawn from its points, in the document's language, under its label. */
type ChartDrawing<Chart extends ChartName> = (
  points: NonNullable<ReportCharts[Chart]>,
  locale: DocumentLocale,
  label: string,
) => SafeHtml;

/** Net revenue per day: one column per day, a gridded value axis, and a few date labels. */
const revenueChart: ChartDrawing<'revenuePerDay'> = (points, locale, label) => {
  const rtl = locale === 'ar';
  // The value axis is on the side the days start from: the left in English, the right in Arabic.
  const [left, right] = rtl ? [12, 56] : [56, 12];
  const top = 12;
  const bottom = 34;
  const plotWidth = WIDTH - left - right;
  const plotHeight = HEIGHT - top - bottom;
  const ceiling = niceCeiling(Math.max(0, ...points.map((point) => point.revenue)));
  const body: string[] = [];
  for (let step = 0; step <= 4; step += 1) {
    const y = top + plotHeight - (plotHeight * step) / 4;
    body.push(
      `<line x1="${left}" x2="${WIDTH - right}" y1="${y}" y2="${y}" stroke="${AXIS}" stroke-width="0.5"/>`,
    );
    const value = numbers[locale].format((ceiling * step) / 4);
    body.push(
      rtl ? text(WIDTH - right + 6, y + 4, 'start', value, 10) : text(left - 6, y + 4, 'end', value, 10),
    );
  }
  const slot = plotWidth / Math.max(1, points.length);
  const xOf = (index: number) => (rtl ? left + plotWidth - (index + 1) * slot : left + index * slot);
  const bars = points.map((point, index) => {
    const height = (plotHeight * point.revenue) / ceiling;
    return `M${(xOf(index) + slot * 0.15).toFixed(1)} ${(top + plotHeight).toFixed(1)}v${(-height).toFixed(1)}h${(slot * 0.7).toFixed(1)}v${height.toFixed(1)}z`;
  });
  body.push(`<path fill="${BAR}" d="${bars.join('')}"/>`);
  const labelEvery = Math.max(1, Math.ceil(points.length / 8));
  const last = points.length - 1;
  points.forEach((point, index) => {
    const closeToLabelled = last % labelEvery < labelEvery / 2;
    if (index % labelEvery === 0 || (index === last && !closeToLabelled)) {
      body.push(text(xOf(index) + slot / 2, HEIGHT - 12, 'middle', point.date.slice(5), 10));
    }
  });
  return svg(label, body);
};

/** Occupancy per route: one bar per route (at most 12, the fullest first), labelled with its percent. */
const occupancyChart: ChartDrawing<'occupancyPerRoute'> = (routes, locale, label) => {
  const rtl = locale === 'ar';
  const shown = [...routes].sort((a, b) => b.percent - a.percent).slice(0, 12);
  const names = 200;
  const plotWidth = WIDTH - names - 60;
  const row = (HEIGHT - 12) / Math.max(6, shown.length);
  const body: string[] = [];
  shown.forEach((route, index) => {
    const y = 6 + index * row;
    const length = (plotWidth * Math.min(100, route.percent)) / 100;
    const barStart = rtl ? WIDTH - names - length : names;
    const nameX = rtl ? WIDTH - names + 8 : names - 8;
    body.push(text(nameX, y + row * 0.62, rtl ? 'start' : 'end', route.route, 10));
    body.push(
      `<rect x="${barStart.toFixed(1)}" y="${(y + row * 0.15).toFixed(1)}" width="${length.toFixed(1)}" height="${(row * 0.7).toFixed(1)}" fill="${BAR}"/>`,
    );
    const valueX = rtl ? barStart - 6 : barStart + length + 6;
    body.push(text(valueX, y + row * 0.62, rtl ? 'end' : 'start', `${route.percent}%`, 10));
  });
  const axisX = rtl ? WIDTH - names : names;
  body.push(
    `<line x1="${axisX}" x2="${axisX}" y1="4" y2="${HEIGHT - 4}" stroke="${AXIS}" stroke-width="0.75"/>`,
  );
  return svg(label, body);
};

/** How each chart of ReportCharts is drawn. */
const DRAWINGS: { [Chart in ChartName]: ChartDrawing<Chart> } = {
  revenuePerDay: revenueChart,
  occupancyPerRoute: occupancyChart,
};

/** One of the report's charts drawn, or null when it has no points. */
export function drawnChart<Chart extends ChartName>(
  chart: Chart,
  charts: ReportCharts,
  locale: DocumentLocale,
  label: string,
): SafeHtml | null {
  const points = charts[chart];
  return points?.length ? DRAWINGS[chart](points, locale, label) : null;
}
