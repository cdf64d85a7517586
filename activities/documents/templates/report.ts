import type { DocumentLocale } from '../../../domain/documents.js';
import { REPORT_CHARTS, type ReportSnapshotData, type ReportValue } from '../../../domain/reports.js';
import { OPERATING_TIME_ZONE } from '../../../domain/time.js';
import { dateTimeFormatsOf, numberFormatsOf, wholeNumber } from '../format.js';
import { escapeHtml, html, type SafeHtml } from '../html.js';
import { printedPage } from '../page-shell.js';
import { REPORT_LABELS, type ReportLabels } from '../report-labels.js';
import { reportCss, reportFooterTemplate } from '../report-styles.js';
import { drawnChart } from './report-charts.js';

/**
 * A company report as a landscape PDF: the company's identity and the report's facts on top, its
 * charts, then every row in one table whose header row repeats on each page, and the totals. The
 * snapshot holds everything printed; dates and numbers are formatted here in the snapshot's language.
 */
const decimals = numberFormatsOf({ minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** Whole-trip seats: a whole number, or up to two decimals when seats were sold by stretches. */
const seatFigures = numberFormatsOf({ maximumFractionDigits: 2 });
const longDates = dateTimeFormatsOf({ timeZone: 'UTC', dateStyle: 'long' });
const instants = dateTimeFormatsOf({ timeZone: OPERATING_TIME_ZONE, dateStyle: 'long', timeStyle: 'short' });

const longDate = (locale: DocumentLocale, date: string) =>
  longDates[locale].format(new Date(`${date}T00:00:00Z`));

function cell(value: ReportValue, kind: string, locale: DocumentLocale, t: ReportLabels): SafeHtml {
  if (value === null) return html`<td></td>`;
  if (kind === 'integer' || kind === 'money')
    return html`<td class="number">${wholeNumber(locale, Number(value))}</td>`;
  if (kind === 'percent') return html`<td class="number">${decimals[locale].format(Number(value))}</td>`;
  if (kind === 'seats') return html`<td class="number">${seatFigures[locale].format(Number(value))}</td>`;
  if (kind === 'code') return html`<td>${t.words[String(value)] ?? String(value)}</td>`;
  if (kind === 'text') return html`<td class="text"><bdi>${String(value)}</bdi></td>`;
  return html`<td><bdi>${String(value)}</bdi></td>`;
}

function head(data: ReportSnapshotData, locale: DocumentLocale, t: ReportLabels): SafeHtml {
  const { company, report } = data;
  const [name, other] =
    locale === 'ar' ? [company.name_ar, company.name_en] : [company.name_en, company.name_ar];
  const address =
    locale === 'ar' ? company.address_ar || company.address_en : company.address_en || company.address_ar;
  const contact = [company.phone, company.email, address].filter((part): part is string => Boolean(part));
  return html`<header class="report-head">
    <div>
      <div class="company">${name}</div>
      <div class="company-other"><bdi>${other}</bdi></div>
      ${contact.length ? html`<div class="contact">${contact.map((part, index) => html`${index ? ' · ' : ''}<bdi>${part}</bdi>`)}</div>` : ''}
    </div>
    <div class="facts">
      <h1>${t.titles[report.type]}</h1>
      <div>${t.period}: ${longDate(locale, report.from)} – ${longDate(locale, report.to)}</div>
      <div>${t.generatedAt}: ${instants[locale].format(new Date(report.generated_at))}</div>
      <div>${t.rows}: ${wholeNumber(locale, report.row_count)}</div>
    </div>
  </header>`;
}

function charts(data: ReportSnapshotData, locale: DocumentLocale, t: ReportLabels): SafeHtml {
  const figures: SafeHtml[] = [];
  for (const chart of REPORT_CHARTS[data.report.type]) {
    const drawn = drawnChart(chart, data.charts, locale, t[chart]);
    if (drawn) {
      figures.push(
        html`<figure>
          <figcaption>${t[chart]}</figcaption>
          ${drawn}
        </figure>`,
      );
    }
  }
  return figures.length ? html`<section class="charts">${figures}</section>` : html``;
}

function table(data: ReportSnapshotData, locale: DocumentLocale, t: ReportLabels): SafeHtml {
  const numeric = (kind: string) => ['integer', 'seats', 'money', 'percent'].includes(kind);
  const rows = data.rows.map(
    (row) =>
      html`<tr>
        ${data.columns.map((column) => cell(row[column.key] ?? null, column.kind, locale, t))}
      </tr>`,
  );
  const totals = data.totals
    ? html`<tr class="total">
        ${data.columns.map((column, index) =>
          index === 0
            ? html`<td>${t.total}</td>`
            : cell(data.totals![column.key] ?? null, column.kind, locale, t),
        )}
      </tr>`
    : '';
  return html`<table class="rows">
    <thead>
      <tr>
        ${data.columns.map((column) => html`<th class="${numeric(column.kind) ? 'number' : ''}">${column.label}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}${totals}
    </tbody>
  </table>`;
}

/** The whole report page: language and direction on <html>. */
export function reportHtml(locale: DocumentLocale, data: ReportSnapshotData): string {
  const t = REPORT_LABELS[locale];
  return printedPage(
    locale,
    `${t.titles[data.report.type]} ${data.report.from} – ${data.report.to}`,
    reportCss(locale),
    html`${head(data, locale, t)}
      <p class="note">${t.currencyNote}</p>
      ${data.report.state === 'no_data' ? html`<p class="no-data">${t.noData}</p>` : charts(data, locale, t)}
      ${table(data, locale, t)}`,
  );
}

/** The footer of every page: the company and the report, and "page n of m" (Chromium fills the numbers). */
export function reportFooter(locale: DocumentLocale, data: ReportSnapshotData): string {
  const t = REPORT_LABELS[locale];
  const company = locale === 'ar' ? data.company.name_ar : data.company.name_en;
  const period = `<bdi dir="ltr">${data.report.from}</bdi> – <bdi dir="ltr">${data.report.to}</bdi>`;
  const left = `${escapeHtml(company)} · ${escapeHtml(t.titles[data.report.type])} · ${period}`;
  const right = `${t.page} <span class="pageNumber"></span> ${t.of} <span class="totalPages"></span>`;
  return reportFooterTemplate(locale, left, right);
}
