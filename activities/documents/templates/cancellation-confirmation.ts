import { dateTime, reasonFor } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import {
  bookingReference,
  facts,
  page,
  travellersTable,
  tripSection,
  typed,
  type DocumentView,
} from './common.js';

/** The cancellation confirmation: when and why, and the seats given up. It carries no QR code. */
export function cancellationConfirmationHtml(view: DocumentView): string {
  const { locale, data, t } = view;
  const cancellation = data.cancellation;
  const rows: [string, string | SafeHtml][] = cancellation
    ? [[t.cancelledAt, dateTime(locale, cancellation.cancelled_at)]]
    : [];
  if (cancellation?.reason) rows.push([t.reason, typed(reasonFor(t, cancellation.reason))]);
  return page(view, bookingReference(view), [
    html`<section>
      <p class="notice">${t.notValidForTravel}</p>
      ${facts(rows)}
    </section>`,
    tripSection(view),
    travellersTable(view),
  ]);
}
