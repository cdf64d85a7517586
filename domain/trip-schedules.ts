import type { ActingMember } from './company-actor.js';
import { damascusWallTime } from './time.js';

/**
 * Trip schedules (SPEC "Trip schedule" and POST /trip-schedules): a timetable of departures on
 * chosen days of the week between two operating dates, expanded into trips. Dates, times and
 * days of the week are those of Asia/Damascus: a 01:00 departure on a Monday is a Monday trip
 * although it leaves on Sunday in UTC.
 */

/** SPEC limit: a schedule covers at most 180 operating dates (start and end included). */
export const MAX_SCHEDULE_DAYS = 180;
/** Departures a day one schedule may have. */
export const MAX_DEPARTURES_PER_DAY = 24;

/** The days and times a schedule runs, as SPEC's schedule record gives them. */
export interface ScheduleDays {
  /** First and last operating date (Damascus), YYYY-MM-DD, both included. */
  startDate: string;
  endDate: string;
  /** Damascus local departure times, HH:MM, each day the schedule runs. */
  departureTimes: string[];
  /** 0 = Sunday ... 6 = Saturday, of the Damascus operating date. */
  daysOfWeek: number[];
}

export interface ScheduleTimetable extends ScheduleDays {
  durationMinutes: number;
  /** Departures at or before this instant (epoch ms) are never planned: the moment the plan was made. */
  notBefore: number;
}

export interface PlannedDeparture {
  operatingDate: string;
  /** Epoch milliseconds. */
  departureAt: number;
  arrivalAt: number;
}

export interface ScheduleIssue {
  path: string;
  code: string;
  message: string;
}

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** Operating dates from start to end, both included. */
export function rangeDays(startDate: string, endDate: string): number {
  return dayNumber(endDate) - dayNumber(startDate) + 1;
}

/** The day of the week (0 = Sunday) of a calendar date. */
export function weekday(date: string): number {
  return new Date(`${date}T12:00:00Z`).getUTCDay();
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/** Problems of the dates: end before start, more than 180 days, a start before today (Damascus). */
export function timetableIssues(
  timetable: Pick<ScheduleTimetable, 'startDate' | 'endDate'>,
  today: string,
): ScheduleIssue[] {
  const issues: ScheduleIssue[] = [];
  const days = rangeDays(timetable.startDate, timetable.endDate);
  if (days < 1) {
    issues.push({ path: 'end_date', code: 'END_BEFORE_START', message: 'end_date is before start_date' });
  } else if (days > MAX_SCHEDULE_DAYS) {
    issues.push({
      path: 'end_date',
      code: 'SCHEDULE_RANGE_TOO_LONG',
      message: `a schedule covers at most ${MAX_SCHEDULE_DAYS} days (this one ${days})`,
    });
  }
  if (timetable.startDate < today) {
    issues.push({ path: 'start_date', code: 'START_DATE_IN_PAST', message: 'start_date is before today' });
  }
  return issues;
}

/**
 * The timetable's departures in time order, each instant once; departures not after `notBefore`
 * are left out. (On a day the clocks skipped an hour, two times in it can name one instant.)
 */
export function expandTimetable(timetable: ScheduleTimetable): PlannedDeparture[] {
  const days = new Set(timetable.daysOfWeek);
  const times = [...new Set(timetable.departureTimes)].map(minutesOf).sort((a, b) => a - b);
  const first = dayNumber(timetable.startDate);
  const departures: PlannedDeparture[] = [];
  for (let day = first; day <= dayNumber(timetable.endDate); day++) {
    const operatingDate = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (!days.has(weekday(operatingDate))) continue;
    for (const minutes of times) {
      const departureAt = damascusWallTime(operatingDate, minutes).getTime();
      if (departureAt <= timetable.notBefore) continue;
      departures.push({
        operatingDate,
        departureAt,
        arrivalAt: departureAt + timetable.durationMinutes * 60_000,
      });
    }
  }
  departures.sort((a, b) => a.departureAt - b.departureAt);
  return departures.filter(
    (departure, index) => departure.departureAt !== departures[index - 1]?.departureAt,
  );
}

export function batchCount(trips: number, batchSize: number): number {
  return Math.ceil(trips / batchSize);
}

/** The departures batch `index` creates. */
export function batchOf<T>(departures: readonly T[], index: number, batchSize: number): T[] {
  return departures.slice(index * batchSize, (index + 1) * batchSize);
}

/** The departures a schedule still has to create once `batchesDone` batches are committed. */
export function pendingDepartures<T>(departures: readonly T[], batchesDone: number, batchSize: number): T[] {
  return departures.slice(batchesDone * batchSize);
}

/**
 * Phases of a schedule's workflow, shown as its ProcessStatus: NEW until the claim,
 * COMMITTING while batches run, then COMPLETED, FAILED (a conflict appeared after the claim
 * although skip_conflicts was false), or REFUSED (the claim was refused: nothing was created).
 */
export type SchedulePhase = 'NEW' | 'COMMITTING' | 'COMPLETED' | 'FAILED' | 'REFUSED';

/** Stored status of a schedule row (a refused claim leaves no row). */
export type ScheduleStatus = 'COMMITTING' | 'COMPLETED' | 'FAILED';

/** How far a schedule has come: its batches, and its trips planned, created and skipped. */
export interface ScheduleCounts {
  batchesTotal: number;
  batchesDone: number;
  tripsPlanned: number;
  tripsCreated: number;
  tripsSkipped: number;
}

export interface ScheduleProgress extends ScheduleCounts {
  phase: SchedulePhase;
}

/** The ProcessStatus text of a phase and its progress, e.g. "COMMITTING 3/11". */
export function processStatusOf(progress: ScheduleProgress): string {
  return progress.phase === 'COMMITTING'
    ? `COMMITTING ${progress.batchesDone}/${progress.batchesTotal}`
    : progress.phase;
}

/** What a new trip is planned on (POST /trips and every trip of a schedule). */
export interface TripRefsRequest {
  routeId: string;
  busId: string;
  driverId: string | null;
  pickupStopId: string;
  /** The route's own running time when omitted. */
  durationMinutes?: number;
}

/** SPEC's schedule record as the planner reads it. */
export interface ScheduleRequest extends TripRefsRequest, ScheduleDays {}

export interface ScheduleCommitRequest extends ScheduleRequest {
  priceBase: number;
  priceVip: number | null;
  notes: string;
}

/** The claim: the first step of the workflow, answered to the POST that started it. */
export interface ScheduleClaimInput {
  scheduleId: string;
  companyId: string;
  staffUserId: string;
  /**
   * The member committing it (staffUserId), checked again by the claim under the company lock: one
   * signed out, deactivated or demoted meanwhile is refused and nothing is created. The batches
   * after a claim finish what it committed and do not check them again.
   */
  actor: ActingMember;
  request: ScheduleCommitRequest;
  skipConflicts: boolean;
  batchSize: number;
  /** Epoch ms: the moment the plan is made; departures up to it are not planned. */
  notBefore: number;
  /**
   * The request that committed it, for the claim's audit row (absent in runs started before the
   * claim wrote one).
   */
  origin?: { ip: string; requestId: string };
}

/** A schedule's stored progress, as each batch leaves it. */
export interface ScheduleProgressRow extends ScheduleCounts {
  status: ScheduleStatus;
  failureReason: string | null;
}

/**
 * The claim's answer: the schedule's counts, bounded whatever its size. It goes through Temporal
 * twice in one workflow task (the local activity's result and the Update's answer), under its 4 MB
 * message limit, so it names no departure or conflict: those are the stored schedule's
 * (`trip_schedules.conflicts`, GET /trip-schedules/{id}). Runs recorded when it carried
 * `conflicts` replay the same: an activity's result is data, read by no command.
 */
export interface ScheduleClaim extends ScheduleProgressRow {
  scheduleId: string;
}
