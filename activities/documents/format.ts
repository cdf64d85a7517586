import type { DocumentLocale, BilingualName } from '../../domain/documents.js';
import { OPERATING_TIME_ZONE } from '../../domain/time.js';
import type { Labels } from './labels.js';

/**
 * Dates and amounts as printed: Damascus time, Latin digits in both languages (booking codes and
 * seat labels are Latin too, and staff read documents in either language the same way).
 */
const dateTimeFormats: Record<DocumentLocale, Intl.DateTimeFormat> = {
  ar: new Intl.DateTimeFormat('ar-SY-u-nu-latn', {
    timeZone: OPERATING_TIME_ZONE,
    dateStyle: 'full',
    timeStyle: 'short',
  }),
  en: new Intl.DateTimeFormat('en-GB', {
    timeZone: OPERATING_TIME_ZONE,
    dateStyle: 'full',
    timeStyle: 'short',
  }),
};

const numberFormats: Record<DocumentLocale, Intl.NumberFormat> = {
  ar: new Intl.NumberFormat('ar-SY-u-nu-latn', { maximumFractionDigits: 0 }),
  en: new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 }),
};

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
