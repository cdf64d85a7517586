import type { DocumentLocale } from '../../domain/documents.js';

/**
 * Fonts come from the system (Debian fonts-noto-core): no web fonts, nothing fetched. Naskh reads
 * best for Arabic body text; Noto Sans covers Latin names in Arabic documents and the reverse.
 * Report PDFs (report-styles.ts) print in the same fonts.
 */
export const FONT_STACKS: Record<DocumentLocale, string> = {
  ar: "'Noto Naskh Arabic', 'Noto Sans Arabic', 'Noto Sans', sans-serif",
  en: "'Noto Sans', 'Noto Naskh Arabic', sans-serif",
};

export function documentCss(locale: DocumentLocale): string {
  return `
@page { size: A4; margin: 14mm 14mm 16mm; }
* { box-sizing: border-box; }
html { font-family: ${FONT_STACKS[locale]}; font-size: 10.5pt; color: #1b1f24; }
body { margin: 0; }
header.document-head { display: flex; justify-content: space-between; align-items: flex-start;
  border-bottom: 2px solid #1f5f8b; padding-bottom: 4mm; margin-bottom: 5mm; }
header.document-head h1 { font-size: 18pt; margin: 0 0 1mm; color: #1f5f8b; }
header.document-head .company { font-size: 12pt; font-weight: 700; }
header.document-head .reference { text-align: end; }
header.document-head .code { font-size: 14pt; font-weight: 700; letter-spacing: 0.5pt; }
section { margin-bottom: 5mm; break-inside: avoid; }
h2 { font-size: 12pt; margin: 0 0 2mm; color: #1f5f8b; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 1.2mm 6mm; margin: 0; }
dl.facts dt { color: #56616c; }
dl.facts dd { margin: 0; font-weight: 600; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: start; padding: 1.6mm 2mm; border-bottom: 1px solid #d5dbe1; }
th { background: #eef3f7; font-weight: 700; }
td.amount, th.amount { text-align: end; }
tr.total td { font-weight: 700; border-top: 2px solid #1f5f8b; }
.route { font-size: 13pt; font-weight: 700; }
.notice { border: 1px solid #b3261e; color: #b3261e; padding: 3mm; font-weight: 700; }
.passes { display: flex; flex-wrap: wrap; gap: 6mm; }
article.sheet + article.sheet { break-before: page; }
.pass { width: 84mm; border: 1px solid #8a96a3; padding: 4mm; break-inside: avoid; text-align: center; }
.pass .who { font-weight: 700; font-size: 11pt; }
.pass .qr-code { display: block; width: 62mm; height: 62mm; margin: 2mm auto; }
.note { color: #56616c; font-size: 9pt; }
footer { margin-top: 6mm; color: #56616c; font-size: 8.5pt; border-top: 1px solid #d5dbe1; padding-top: 2mm; }
`;
}
