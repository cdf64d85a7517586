import type { DocumentLocale } from '../../domain/documents.js';
import { html, trusted, type SafeHtml } from './html.js';

/**
 * The HTML around every printed page, document or report: language and direction on <html>, the
 * title, and the stylesheet inline (nothing is fetched while the page prints).
 */
export function printedPage(locale: DocumentLocale, title: string, css: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">
      <head>
        <meta charset="utf-8" />
        <title>${title}</title>
        <style>
          ${trusted(css)}
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html>`.text;
}
