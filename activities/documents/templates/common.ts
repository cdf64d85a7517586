import type {
  DocumentKind,
  DocumentLocale,
  SnapshotData,
  SnapshotTraveller,
} from '../../../domain/documents.js';
import { dateTime, money, nameIn, wordFor } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { LABELS, type Labels } from '../labels.js';
import { qrSvg } from '../qr.js';
import { printedPage } from '../page-shell.js';
import { documentCss } from '../styles.js';

/** What every template reads: the snapshot's kind, locale and data, and the words of its language. */
export interface DocumentView {
  kind: DocumentKind;
  locale: DocumentLocale;
  data: SnapshotData;
  t: Labels;
}

export function viewOf(kind: DocumentKind, locale: DocumentLocale, data: SnapshotData): DocumentView {
  return { kind, locale, data, t: LABELS[locale] };
}

/**
 * Text a company or a person typed (the company's name, a city, a pickup point, a reason in words):
 * in either script whatever the document's language (a pickup point without English text prints its
 * Arabic in an English document), so laid out in its own direction, from its first letter, beside the
 * document's: an Arabic line's full stop or leading house number stays at its own end.
 */
export const typed = (text: string): SafeHtml => html`<bdi>${text}</bdi>`;

/** The document's title, the company and the reference on top. */
function documentHead({ locale, data, t, kind }: DocumentView, reference: SafeHtml): SafeHtml {
  const company = locale === 'ar' ? data.company.name_ar : data.company.name_en;
  return html`<header class="document-head">
    <div>
      <h1>${t.titles[kind]}</h1>
      <div class="company">${typed(company)}</div>
      ${data.company.phone ? html`<div>${t.phone}: <bdi>${data.company.phone}</bdi></div>` : ''}
    </div>
    <div class="reference">${reference}</div>
  </header>`;
}

const documentFoot = ({ locale, data, t }: DocumentView): SafeHtml =>
  html`<footer>${t.issuedAt}: ${dateTime(locale, data.issued_at)}</footer>`;

/** The HTML document around `content`: language and direction on <html>, the title and the stylesheet. */
const printed = (view: DocumentView, content: SafeHtml): string =>
  printedPage(
    view.locale,
    `${view.t.titles[view.kind]} ${view.data.booking.code}`,
    documentCss(view.locale),
    content,
  );

/** The whole page: language and direction on <html>, the company and reference on top. */
export function page(view: DocumentView, reference: SafeHtml, body: SafeHtml[]): string {
  return printed(
    view,
    html`${documentHead(view, reference)}
      <main>${body}</main>
      ${documentFoot(view)}`,
  );
}

/**
 * A document printed as separate pages, one per entry of `sheets`: each page a whole one, with the
 * company and reference on top and the issue at the foot, and each after the first on a new page
 * (a break before, never after, so no blank page ends the document).
 */
export function pagedDocument(view: DocumentView, reference: SafeHtml, sheets: SafeHtml[][]): string {
  return printed(
    view,
    html`<main>
      ${sheets.map(
        (body) =>
          html`<article class="sheet">
            ${documentHead(view, reference)} ${body} ${documentFoot(view)}
          </article>`,
      )}
    </main>`,
  );
}

export function bookingReference(view: DocumentView): SafeHtml {
  return html`<div>${view.t.bookingCode}</div>
    <div class="code"><bdi>${view.data.booking.code}</bdi></div>`;
}

export function numberedReference(label: string, number: string, view: DocumentView): SafeHtml {
  return html`<div>${label}</div>
    <div class="code"><bdi>${number}</bdi></div>
    <div class="note">${view.t.bookingCode}: <bdi>${view.data.booking.code}</bdi></div>`;
}

export function facts(rows: [string, string | SafeHtml][]): SafeHtml {
  return html`<dl class="facts">
    ${rows.map(
      ([term, value]) =>
        html`<dt>${term}</dt>
          <dd>${value}</dd>`,
    )}
  </dl>`;
}

export function tripSection({ locale, data, t }: DocumentView): SafeHtml {
  const { trip } = data;
  const rows: [string, string | SafeHtml][] = [
    [t.departure, dateTime(locale, trip.departure_at)],
    [t.arrival, dateTime(locale, trip.arrival_at)],
  ];
  if (trip.pickup) {
    const address = nameIn(locale, trip.pickup.address);
    const directions = trip.pickup.directions ? nameIn(locale, trip.pickup.directions) : '';
    rows.push([
      t.pickup,
      html`${typed(nameIn(locale, trip.pickup.name))}${address ? html`<br />${typed(address)}` : ''}${
        directions ? html`<br /><span class="note">${typed(directions)}</span>` : ''
      }`,
    ]);
  }
  return html`<section>
    <h2>${t.trip}</h2>
    <p class="route">
      ${typed(nameIn(locale, trip.origin))} ${locale === 'ar' ? '←' : '→'}
      ${typed(nameIn(locale, trip.destination))}
    </p>
    ${facts(rows)}
  </section>`;
}

export function bookingSection({ locale, data, t }: DocumentView): SafeHtml {
  const { booking } = data;
  return html`<section>
    ${facts([
      [t.bookingStatus, wordFor(t, booking.status)],
      [t.paymentStatus, wordFor(t, booking.payment_status)],
      [t.bookedAt, dateTime(locale, booking.created_at)],
      [t.seats, String(booking.seats_count)],
      [t.total, money(locale, t, booking.total, booking.currency)],
    ])}
  </section>`;
}

/** Whether the booking spans more than one leg: then each traveller's seat names its leg. */
const spansLegs = (data: SnapshotData) => data.travellers.some((traveller) => traveller.leg !== 1);

/** Who sits where: `travellers` (else all the booking's), with the leg when the booking spans legs. */
export function travellersTable({ data, t }: DocumentView, travellers = data.travellers): SafeHtml {
  const multiLeg = spansLegs(data);
  return html`<section>
    <h2>${t.travellers}</h2>
    <table>
      <thead>
        <tr>
          <th>${t.traveller}</th>
          <th>${t.seat}</th>
          ${multiLeg ? html`<th>${t.leg}</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${travellers.map(
          (traveller) =>
            html`<tr>
              <td dir="auto">${traveller.name}</td>
              <td><bdi>${traveller.seat_number}</bdi></td>
              ${multiLeg ? html`<td>${String(traveller.leg)}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** The traveller seats that carry a signed credential: one ticket each (traveller × leg). */
export const credentialHolders = (data: SnapshotData): SnapshotTraveller[] =>
  data.travellers.filter((traveller) => traveller.credential);

/** One traveller seat's boarding pass: who, the seat (and its leg when the booking spans legs), the QR. */
function pass({ data, t }: DocumentView, traveller: SnapshotTraveller): SafeHtml {
  const leg = spansLegs(data) ? html` · ${t.leg} ${String(traveller.leg)}` : '';
  return html`<div class="pass">
    <div class="who" dir="auto">${traveller.name}</div>
    <div>${t.seat}: <bdi>${traveller.seat_number}</bdi>${leg}</div>
    ${qrSvg(traveller.credential!)}
  </div>`;
}

/** The boarding passes of `holders` (credentialHolders), each with its own QR code. */
export function boardingPasses(view: DocumentView, holders = credentialHolders(view.data)): SafeHtml {
  if (holders.length === 0) return html``;
  return html`<section>
    <h2>${view.t.boardingPass}</h2>
    <p class="note">${view.t.scanNote}</p>
    <div class="passes">${holders.map((traveller) => pass(view, traveller))}</div>
  </section>`;
}

export function priceTable({ locale, data, t }: DocumentView): SafeHtml {
  const { booking } = data;
  const amount = (value: number) => money(locale, t, value, booking.currency);
  return html`<section>
    <table>
      <tbody>
        <tr>
          <td>${t.seats} × ${String(booking.seats_count)}</td>
          <td class="amount">${amount(booking.subtotal)}</td>
        </tr>
        ${
          booking.discount
            ? html`<tr>
                <td>${t.discount}</td>
                <td class="amount">− ${amount(booking.discount)}</td>
              </tr>`
            : ''
        }
        <tr class="total">
          <td>${t.total}</td>
          <td class="amount">${amount(booking.total)}</td>
        </tr>
      </tbody>
    </table>
  </section>`;
}

export function paymentFacts(view: DocumentView, whenLabel: string): SafeHtml {
  const { locale, data, t } = view;
  const payment = data.payment;
  if (!payment) return html``;
  return html`<section>
    ${facts([
      [t.amount, money(locale, t, payment.amount, data.booking.currency)],
      [t.method, wordFor(t, payment.method)],
      [whenLabel, dateTime(locale, payment.collected_at)],
      [t.collectedThrough, wordFor(t, payment.source)],
    ])}
  </section>`;
}

/** A boarding document: the trip, who sits where and each traveller's boarding pass, after `leading`. */
export function boardingPage(view: DocumentView, leading: SafeHtml[] = []): string {
  return page(view, bookingReference(view), [
    ...leading,
    tripSection(view),
    travellersTable(view),
    boardingPasses(view),
  ]);
}

/** A receipt or a refund notice: its fixed number on top, then the payment facts and the trip. */
export function receiptPage(view: DocumentView, numberLabel: string, whenLabel: string): string {
  const number = view.data.payment?.number ?? '';
  return page(view, numberedReference(numberLabel, number, view), [
    paymentFacts(view, whenLabel),
    tripSection(view),
  ]);
}
