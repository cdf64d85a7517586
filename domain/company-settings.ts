/**
 * A company's operating settings (GET/PATCH /dashboard/api/settings) that other rules read.
 */

/** A company may let travellers cancel until 0 minutes (departure) to 7 days before departure. */
export const CANCELLATION_CUTOFF_MINUTES = { min: 0, max: 7 * 24 * 60 } as const;

/**
 * How many minutes before departure a traveller of this company may still cancel: the company's
 * own setting, or the platform's BOOKING_CANCEL_CUTOFF_MINUTES when it has none.
 */
export function cancellationCutoffMinutes(companySetting: number | null, platformDefault: number): number {
  return companySetting ?? platformDefault;
}
