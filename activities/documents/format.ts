import type { DocumentLocale, BilingualName } from '../../domain/documents.js';
import { OPERATING_TIME_ZONE } from '../../domain/time.js';
import type { Labels } from './labels.js';

/**
 * Dates and amounts as printed: Damascus time, Latin digits in both languages (booking codes and
 * seat labels are Latin too, and staff read documents in either language the same way).
 */
/** The locale tags documents are printed in: Latin digits in both languages. */
const INTL_LOCALES: Record<DocumentLocale, string> = { ar: 'ar-SY-u-nu-latn', en: 'en-GB' };

/** One value per document language, made from that language's locale tag. */
const perLocale = <T>(make: (tag: string) => T): Record<DocumentLocale, T> => ({
  ar: make(INTL_LOCALES.ar),
  en: make(INTL_LOCALES.en),
});

/** One date-time format per document language, with the same options. */
export const dateTimeFormatsOf = (options: Intl.DateTimeFormatOptions) =>
  perLocale((tag) => new Intl.DateTimeFormat(tag, options));

/** One number format per document language, with the same options. */
export const numberFormatsOf = (options: Intl.NumberFormatOptions) =>
  perLocale((tag) => new Intl.NumberFormat(tag, options));

const dateTimeFormats = dateTimeFormatsOf({
  timeZone: OPERATING_TIME_ZONE,
  dateStyle: 'full',
  timeStyle: 'short',
});
const numberFormats = numberFormatsOf({ maximumFractionDigits: 0 });

export function dateTime(locale: DocumentLocale, iso: string): string {
  return dateTimeFormats[locale].format(new Date(iso));
}

/** A whole number with the locale's grouping (Latin digits). */
export function wholeNumber(locale: DocumentLocale, value: number): string {
  return numberFormats[locale].format(value);
}

export function money(locale: DocumentLocale, labels: Labels, amount: number, currency: string): string {
  return `${wholeNumber(locale, amount)} ${labels.currency[currency] ?? currency}`;
}

export function nameIn(locale: DocumentLocale, name: BilingualName): string {
  return name[locale] || name.ar || name.en;
}

/** A status, method or source in words; an unknown code prints as it is. */
export function wordFor(labels: Labels, code: string): string {
  return labels.statuses[code] ?? code;
}

/** A code as the API writes it (TRIP_CANCELLED), not words someone wrote. */
const REASON_CODE = /^[A-Z][A-Z0-9_:]*$/;

/**
 * Why a booking ended, in words. A code without words yet prints as "Other" in the document's
 * language, never as the code; a reason already in words (free text) prints as it is.
 */
export function reasonFor(labels: Labels, reason: string): string {
  return labels.reasons[reason] ?? (REASON_CODE.test(reason) ? labels.reasons.OTHER : reason);
}
