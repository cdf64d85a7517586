import { Refusal } from './refusal.js';

/**
 * Live tracking of active trips (SPEC "GET /tracking/active-trips": live, delayed, unavailable).
 * The driver app reports positions; a trip's tracking state is how fresh its last report is.
 */
export const TRACKING_STATES = ['LIVE', 'DELAYED', 'UNAVAILABLE'] as const;
export type TrackingState = (typeof TRACKING_STATES)[number];

/** A report younger than this is live. */
export const LIVE_WITHIN_SECONDS = 120;
/** A report older than this no longer says where the bus is: the trip's position is unavailable. */
export const STALE_AFTER_SECONDS = 30 * 60;

/** Where the position comes from: the driver app, or nothing. */
export type TrackingSource = 'DRIVER_APP' | 'NONE';

/** The last report's age in whole seconds, as the tracking answer shows it (age_seconds). */
export function reportAgeSeconds(lastReportAt: Date, now: Date): number {
  return Math.floor((now.getTime() - lastReportAt.getTime()) / 1000);
}

/**
 * LIVE: the last report is under 2 minutes old; DELAYED: older, up to 30 minutes; UNAVAILABLE: no
 * report, or an older one. Judged on the whole seconds the answer shows, so the state and age_seconds
 * never disagree (119.6 s old is 119 and LIVE; 1800.4 s is 1800 and DELAYED).
 */
export function trackingState(lastReportAt: Date | null, now: Date): TrackingState {
  if (!lastReportAt) return 'UNAVAILABLE';
  const ageSeconds = reportAgeSeconds(lastReportAt, now);
  if (ageSeconds < LIVE_WITHIN_SECONDS) return 'LIVE';
  return ageSeconds <= STALE_AFTER_SECONDS ? 'DELAYED' : 'UNAVAILABLE';
}

/** How far from the server's clock a reported instant may be: ahead (a fast phone clock) and back (queued offline). */
export const REPORT_MAX_AHEAD_SECONDS = 5 * 60;
export const REPORT_MAX_AGE_SECONDS = 48 * 3600;

/** Whether a client instant (a scan, a position) is plausible against the server's clock. */
export function plausibleClientInstant(at: Date, now: Date): boolean {
  const ahead = (at.getTime() - now.getTime()) / 1000;
  return ahead <= REPORT_MAX_AHEAD_SECONDS && -ahead <= REPORT_MAX_AGE_SECONDS;
}

/**
 * 400 `code` for a client instant the server does not believe, with the instant sent. Applies to what is
 * recorded for the first time only: a scan or a position the server already stored is answered as stored
 * (the scan's stored answer, the position a duplicate) however late the app sends it again.
 */
export function refuseImplausibleClientInstant(
  at: Date,
  now: Date,
  code: 'SCANNED_AT_OUT_OF_RANGE' | 'POSITION_TIME_OUT_OF_RANGE',
): void {
  if (!plausibleClientInstant(at, now)) {
    throw new Refusal(400, code, 'The reported time is too far from the server clock', {
      value: at.toISOString(),
    });
  }
}
