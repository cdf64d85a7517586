import type { DocumentLocale } from '../../domain/documents.js';
import { FONT_STACKS } from './styles.js';

/**
 * A report prints on landscape A4 (the page size is given to the printer, not here). The table's
 * header row is a <thead>: Chromium repeats it at the top of every page the table runs onto, and
 * a row is never split between two pages. The bottom margin leaves room for the printer's footer
 * (company, report and page number).
 */
export function reportCss(locale: DocumentLocale): string {
  return `
@page { margin: 12mm 12mm 16mm; }
* { box-sizing: border-box; }
html { font-family: ${FONT_STACKS[locale]}; font-size: 8.5pt; color: #1b1f24; }
body { margin: 0; }
header.report-head { display: flex; justify-content: space-between; align-items: flex-start;
  border-bottom: 2px solid #1f5f8b; padding-bottom: 3mm; margin-bottom: 4mm; }
header.report-head h1 { font-size: 16pt; margin: 0; color: #1f5f8b; }
header.report-head .company { font-size: 13pt; font-weight: 700; }
header.report-head .company-other { color: #56616c; }
header.report-head .contact { color: #56616c; font-size: 8.5pt; }
header.report-head .facts { text-align: end; }
.note { color: #56616c; font-size: 8pt; margin: 0 0 3mm; }
.charts { display: flex; gap: 6mm; margin-bottom: 4mm; break-inside: avoid; }
.charts figure { flex: 0 0 calc(50% - 3mm); margin: 0; border: 1px solid #d5dbe1; padding: 2mm; }
.charts figcaption { font-weight: 700; color: #1f5f8b; margin-bottom: 1mm; }
.charts svg.chart { display: block; width: 100%; height: auto; }
.no-data { border: 1px solid #8a96a3; padding: 4mm; margin: 4mm 0; font-weight: 700; text-align: center; }
/* Naskh's tall default line box would halve the rows a page holds. */
table.rows { width: 100%; border-collapse: collapse; line-height: 1.3; }
table.rows thead { display: table-header-group; }
table.rows tr { break-inside: avoid; }
table.rows th, table.rows td { text-align: start; padding: 0.6mm 1.2mm; border-bottom: 1px solid #d5dbe1; }
table.rows td { white-space: nowrap; }
/* Names may wrap, but not into a sliver: a name column keeps room for a first and last name. */
table.rows td.text { white-space: normal; min-width: 30mm; }
table.rows th { background: #eef3f7; font-weight: 700; }
table.rows td.number, table.rows th.number { text-align: end; white-space: nowrap; }
table.rows tr.total td { font-weight: 700; border-top: 2px solid #1f5f8b; }
`;
}

/** The footer Chromium prints on every page: its own small document, styled inline. */
export function reportFooterTemplate(locale: DocumentLocale, left: string, right: string): string {
  const direction = locale === 'ar' ? 'rtl' : 'ltr';
  return (
    `<div dir="${direction}" style="font-family:${FONT_STACKS[locale].replaceAll("'", '')};font-size:7.5pt;color:#56616c;` +
    `width:100%;padding:0 12mm;display:flex;justify-content:space-between;">` +
    `<span>${left}</span><span>${right}</span></div>`
  );
}
