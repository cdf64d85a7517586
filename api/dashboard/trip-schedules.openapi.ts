import { z } from 'zod';
import { MAX_DEPARTURES_PER_DAY, MAX_SCHEDULE_DAYS } from '../../domain/trip-schedules.js';
import { MAX_TRIP_MINUTES } from '../../domain/trip-planning.js';
import { CalendarDate, errorResponses, Pagination, PrintedProse, Uuid } from '../http/schemas.js';
import { DateTime, Money, ok, page, UuidOut, WRITE_RULES } from './planning-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/** OpenAPI of the trip schedule routes (trip-schedules.ts). */

const TAGS = ['Dashboard: trip schedules'];

const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM');

export const ScheduleBody = z
  .object({
    route_id: Uuid,
    pickup_stop_id: Uuid,
    bus_id: Uuid,
    driver_id: Uuid.nullable().default(null),
    start_date: CalendarDate.meta({ description: 'first operating date (Damascus)' }),
    end_date: CalendarDate.meta({
      description:
        'last operating date (Damascus), at most 179 days after start_date: 180 operating dates, both included',
    }),
    departure_time: z.union([Time, z.array(Time).min(1).max(MAX_DEPARTURES_PER_DAY)]).meta({
      description: `Damascus local time HH:MM, or a list of up to ${MAX_DEPARTURES_PER_DAY} for several departures a day`,
    }),
    days_of_week: z
      .array(z.int().min(0).max(6))
      .min(1)
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'must not name a day twice')
      .meta({
        uniqueItems: true,
        description: 'days the schedule runs, 0 = Sunday ... 6 = Saturday, of the Damascus operating date',
      }),
    duration_minutes: z.int().min(1).max(MAX_TRIP_MINUTES).optional().meta({
      description: "minutes from departure to the last stop; the route's running time when omitted",
    }),
    price_base: Money,
    price_vip: Money.nullable().default(null),
    // The company's other planners read them (GET /trip-schedules): prose, nothing that could make
    // them read as another text.
    notes: PrintedProse(0, 1000).default(''),
    commit: z
      .boolean()
      .default(false)
      .meta({ description: 'false (default): preview only, nothing is written' }),
    skip_conflicts: z.boolean().default(false).meta({
      description:
        'true: create the trips without a conflict and skip the others; false: any conflict refuses all',
    }),
  })
  .strict();

export const SchedulesQuery = z.object(Pagination).strict();
export const ScheduleParams = z.object({ id: Uuid }).strict();

const Conflict = z.object({
  kind: z.enum(['BUS_BUSY', 'DRIVER_BUSY', 'DEPARTURE_TAKEN']),
  departure_at: DateTime.meta({ description: 'the planned trip that conflicts' }),
  trip_id: UuidOut.nullable().meta({
    description: 'the trip in the way; null for a trip a schedule claimed but has not created yet',
  }),
  schedule_id: UuidOut.nullable(),
  busy_from: DateTime,
  busy_until: DateTime.meta({
    description:
      'the end of the window: for a trip not yet arrived its expected arrival (the planned arrival, pushed back by ' +
      'the announced delay or a late departure, at most 24 hours), for an arrived one its actual arrival',
  }),
});

/** What a schedule skipped while committing: a conflict, or a departure past when its batch ran. */
const Skipped = Conflict.extend({
  kind: z.enum(['BUS_BUSY', 'DRIVER_BUSY', 'DEPARTURE_TAKEN', 'DEPARTURE_IN_PAST']).meta({
    description:
      'DEPARTURE_IN_PAST: the departure had already left when its batch ran (a batch run late, e.g. after a ' +
      "worker outage); trip_id and schedule_id are null and busy_from/busy_until are the planned trip's own " +
      'departure and arrival',
  }),
});

const Progress = z.object({
  batches_total: z.int(),
  batches_done: z.int(),
  trips_planned: z.int(),
  trips_created: z.int(),
  trips_skipped: z.int().meta({
    description:
      'trips not created: conflicts skipped at the claim (skip_conflicts) or met by a batch, and departures past ' +
      'when their batch ran',
  }),
});

const Schedule = z
  .object({
    id: UuidOut,
    route_id: UuidOut,
    route: z.object({ id: UuidOut, name_ar: z.string(), name_en: z.string() }),
    pickup_stop_id: UuidOut,
    bus_id: UuidOut,
    bus: z.object({ id: UuidOut, plate_number: z.string() }),
    driver_id: UuidOut.nullable(),
    driver: z.object({ id: UuidOut, name: z.string() }).nullable(),
    start_date: z.string().meta({ format: 'date' }),
    end_date: z.string().meta({ format: 'date' }),
    departure_time: z.string().meta({ description: 'the first departure of the day' }),
    departure_times: z.array(z.string()),
    days_of_week: z.array(z.int()),
    duration_minutes: z.int(),
    price_base: z.number(),
    price_vip: z.number().nullable(),
    currency: z.string(),
    notes: z.string(),
    skip_conflicts: z.boolean(),
    status: z.enum(['COMMITTING', 'COMPLETED', 'FAILED']),
    progress: Progress,
    workflow_progress: Progress.extend({ phase: z.string() }).nullable().optional().meta({
      description: "the workflow's progress Query while it commits (null when Temporal cannot answer)",
    }),
    failure_reason: z
      .string()
      .nullable()
      .meta({
        description:
          'why a FAILED schedule stopped (null otherwise): COMPANY_SUSPENDED (the company was suspended while it ' +
          'committed), OPERATOR_CANCELLED (an operator cancelled its workflow to stop it), TRIP_AFTER_LAST_DATE, or ' +
          'the code of the route, bus, driver or pickup stop refusal its batch ' +
          'met (as POST /trips answers it); CONFLICT_AFTER_CLAIM only on schedules committed before 2026-12-05 (a ' +
          'conflict a batch meets now skips its departure alone)',
      }),
    conflicts: z.array(Skipped).meta({
      description:
        'the skipped trips: conflicts found by the claim (skip_conflicts) or met by a batch, and departures past ' +
        'when their batch ran',
    }),
    created_by: UuidOut,
    created_at: DateTime,
    completed_at: DateTime.nullable(),
  })
  .meta({ id: 'TripSchedule' });

const Preview = z.object({
  success: z.literal(true),
  preview: z.literal(true),
  data: z.object({
    trips: z.array(
      z.object({
        operating_date: z.string().meta({ format: 'date' }),
        departure_at: DateTime,
        arrival_at: DateTime,
        conflicts: z
          .array(z.string())
          .meta({ description: 'kinds of conflict this trip meets; empty when free' }),
      }),
    ),
    conflicts: z.array(Conflict),
    summary: z.object({ trips_planned: z.int(), conflicting: z.int(), would_create: z.int() }),
  }),
});

const Accepted = z.object({
  success: z.literal(true),
  data: z.object({ id: UuidOut, status: z.literal('COMMITTING'), progress: Progress }),
  progress_url: z.string().meta({ description: 'GET it for the progress (also the Location header)' }),
});

const RULES =
  `start_date to end_date covers at most ${MAX_SCHEDULE_DAYS} operating dates, both included (400 ` +
  'SCHEDULE_RANGE_TOO_LONG), the end not before the start (400 END_BEFORE_START), the start not before today in ' +
  'Damascus (400 START_DATE_IN_PAST); days_of_week is a non-empty set. The route, bus, driver, pickup stop and ' +
  'duration_minutes follow the rules of POST /trips (among them 409 ROUTE_INACTIVE for a route no longer run, 400 ' +
  "DURATION_TOO_SHORT, details.minimum, for a duration that leaves no minute per leg besides the route's dwell " +
  'times), and every trip arrives by the end of 9999-12-31 in Damascus (400 TRIP_AFTER_LAST_DATE); ' +
  'departures of one schedule may not overlap each other (400 SCHEDULE_OVERLAPS_ITSELF). ' +
  'Dates, times and days of the week are those of Asia/Damascus; departures already past are left out. A conflict is ' +
  'the bus or the driver busy in an overlapping window (trips, until their expected arrival when running late, and ' +
  'trips that schedules still committing have claimed), or a trip of the route at that very departure.';

export const docs = taggedOperations(TAGS, {
  listTripSchedules: {
    summary: "The company's trip schedules, latest first",
    description:
      'Each series with its SPEC record, its status (COMMITTING, COMPLETED, FAILED) and progress. OWNER, ADMIN and ' +
      'DISPATCHER only (403 ROLE_NOT_ALLOWED).',
    responses: answers(200, 'A page of schedules', page(Schedule), [400, 401, 403]),
  },
  getTripSchedule: {
    summary: 'One trip schedule and its progress',
    description:
      "Where a 202 from POST /trip-schedules points. While COMMITTING, workflow_progress is the workflow's progress " +
      'Query. A FAILED schedule names its reason in failure_reason and keeps the trips of its batches before it; ' +
      'COMPANY_SUSPENDED: the company was suspended while the schedule committed, and no trip was created after the ' +
      'suspension. A batch that ran after some of its departures had left (the workflow resumed late) created none ' +
      'of them: each is counted in progress.trips_skipped and listed in conflicts with kind DEPARTURE_IN_PAST, ' +
      "the schedule's later trips created as usual. Another company's schedule is 404 SCHEDULE_NOT_FOUND. OWNER, " +
      'ADMIN and DISPATCHER only.',
    responses: answers(200, 'The schedule', ok(Schedule), [400, 401, 403, 404]),
  },
  postTripSchedule: {
    summary: 'Preview or commit a trip schedule',
    description:
      `${WRITE_RULES} ${RULES} commit false (the default) previews: every trip it would create and every conflict, ` +
      'written nowhere (200, preview: true). commit true starts the workflow trip-schedule/{id}: its claim re-checks ' +
      'everything under the bus and driver locks; with conflicts and skip_conflicts false nothing is created (409 ' +
      'SCHEDULE_CONFLICTS, details.conflicts names up to 50 of them and details.total counts them); a schedule that ' +
      'would create no trip is never created (422 SCHEDULE_EMPTY). With skip_conflicts true the departures in conflict ' +
      'are skipped at the claim for good: counted in trips_skipped and listed in conflicts from the start, created by ' +
      'no batch, and holding nothing meanwhile (another trip may take their bus, driver or departure). Then the ' +
      'workflow creates the trips in batches, each one transaction that re-checks its conflicts. The claim reserved ' +
      'every departure, so a conflict a batch meets comes from a change the claim cannot hold off (a delay announced ' +
      'on another trip of the bus or driver, a late departure): the batch skips that departure alone, whatever ' +
      'skip_conflicts, counting it in trips_skipped and listing it in conflicts, and the schedule goes on. The claim ' +
      'commits within 20 s of the request or writes nothing, and the POST waits 25 s for it: 503 ' +
      'SCHEDULE_UNAVAILABLE (the claim held up, e.g. by a lock, or Temporal not answering) leaves no schedule behind, ' +
      'and the same request may be sent again. A run Temporal cannot advance (its workflow task failing, a worker ' +
      'fault) is the same 503 SCHEDULE_UNAVAILABLE; its claim may then be recorded already, finished once the run ' +
      'goes through, and a retry meanwhile is refused as in conflict with it, never doubled. The ' +
      'claim and every batch ' +
      'read the company first: a company suspended before the claim gets 403 COMPANY_SUSPENDED and nothing is ' +
      'created; one suspended while the batches run gets no trip after the suspension (the schedule ends FAILED with ' +
      'COMPANY_SUSPENDED, its earlier trips stay). The claim also reads the committing member as they stand then, after ' +
      'any change committed while the request waited: signed out or deactivated 401 INVALID_CREDENTIAL, no longer ' +
      'OWNER, ADMIN or DISPATCHER 403 ROLE_NOT_ALLOWED, nothing created; the batches after a claim finish it. A batch creates no trip whose departure is already past at its own ' +
      'time (when the workflow resumes late, e.g. after a worker outage): it skips each, whatever skip_conflicts, ' +
      'counting it in trips_skipped and listing it in conflicts with kind DEPARTURE_IN_PAST. The answer is 201 with ' +
      'the schedule when the workflow ends within SCHEDULE_ANSWER_WAIT_MS (5 s), else 202 with Location and ' +
      'progress_url to read the progress. Two commits for one bus at once run one after the other: no bus or driver ' +
      'is ever booked twice. Trips carry their stop calls from the route, like any trip, so travellers find and book them.',
    responses: {
      200: { description: 'Preview (commit false)', schema: Preview },
      201: { description: 'Committed and finished', schema: ok(Schedule) },
      202: { description: 'Committed; trips are still being created', schema: Accepted },
      ...errorResponses(400, 401, 403, 404, 409, 422, 503),
    },
  },
});
