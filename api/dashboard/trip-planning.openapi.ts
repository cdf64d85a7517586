import { z } from 'zod';
import { TripStatus } from '../../db/entities/trip.js';
import { MAX_TRIP_MINUTES } from '../../domain/trip-planning.js';
import { PickupLocationSchema } from '../customer/trips.openapi.js';
import { CalendarDate, errorResponses, InstantInput, Pagination, Uuid } from '../http/schemas.js';
import {
  Money,
  NamedRefOut,
  ok,
  PaginationOut,
  TripTimesOut,
  UuidOut,
  WRITE_RULES,
} from './planning-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/** OpenAPI of GET and POST /dashboard/api/trips (trip-planning.ts). */

const TAGS = ['Dashboard: trips'];
const Status = z.enum(TripStatus);

export const TripsQuery = z
  .object({
    date: CalendarDate.optional().meta({
      description:
        'a Damascus operating date: that day in departure order; without it the whole history, latest first',
    }),
    status: Status.optional().meta({
      description: 'only trips in this status (the counters still count every status)',
    }),
    route_id: Uuid.optional(),
    bus_id: Uuid.optional(),
    ...Pagination,
  })
  .strict();

/** An instant with its offset, as travellers and planners write it: 2026-12-01T08:00:00+03:00. */
const Departure = InstantInput.meta({
  description: 'ISO 8601 with offset; the operating date is its Damascus date',
});

export const TripBody = z
  .object({
    trip_id: Uuid.optional().meta({ description: 'an existing trip to re-plan; omitted for a new trip' }),
    route_id: Uuid,
    bus_id: Uuid,
    driver_id: Uuid.nullable().default(null),
    pickup_stop_id: Uuid,
    departure_at: Departure,
    duration_minutes: z.int().min(1).max(MAX_TRIP_MINUTES).optional().meta({
      description:
        "minutes to the last stop; the route's running time when omitted (intermediate times scale)",
    }),
    price_base: Money,
    price_vip: Money.nullable().default(null),
  })
  .strict();

const Trip = z
  .object({
    id: UuidOut,
    status: Status,
    ...TripTimesOut,
    route: z.object({
      id: UuidOut,
      name_ar: z.string(),
      name_en: z.string(),
      origin_city: NamedRefOut,
      destination_city: NamedRefOut,
    }),
    bus: z.object({ id: UuidOut, plate_number: z.string(), model: z.string() }),
    driver: z
      .object({
        id: UuidOut,
        name: z.string(),
        email: z.string(),
        active: z.boolean().meta({
          description:
            'false while the driver has no active DRIVER membership of the company or their account is disabled: ' +
            'the trip keeps them; one still to run shows DRIVER_INACTIVE in its readiness (GET /trips/{id}/dispatch) ' +
            'until it is re-planned with another driver',
        }),
      })
      .nullable(),
    pickupLocation: PickupLocationSchema,
    seats_total: z.int(),
    seats_taken: z.int().meta({ description: 'seats held or sold somewhere on the trip' }),
    price_base: z.number(),
    price_vip: z.number().nullable(),
    currency: z.string(),
    schedule_id: UuidOut.nullable(),
  })
  .meta({ id: 'DashboardTrip' });

const TripList = z.object({
  success: z.literal(true),
  data: z.array(Trip),
  counters: z
    .record(Status, z.int())
    .meta({ description: 'trips of every status in the selection (all pages)' }),
  pagination: PaginationOut,
});

export const docs = taggedOperations(TAGS, {
  listPlanningTrips: {
    summary: "The company's trips, a page at a time, with status counters",
    description:
      'With date (a Damascus operating date) the trips of that day in departure order; without it the whole history, ' +
      'latest departure first. route_id, bus_id and status narrow it; counters count every status over the whole ' +
      'selection (before the status filter), pagination.total the trips matching every filter. Each trip carries ' +
      'its driver (with whether the driver is still active), delay and actual departure and arrival. Any role may ' +
      'read them.',
    responses: answers(200, 'A page of trips', TripList, [400, 401]),
  },
  planTrip: {
    summary: 'Plan a trip (or re-plan one)',
    description:
      `${WRITE_RULES} The bus needs an active validated layout (409 BUS_LAYOUT_REQUIRED; a bus imported before ` +
      'canonical layouts without one sells its recorded capacity: the plan gives it a generated layout of that many ' +
      'seats) and must be in service (409 ' +
      'BUS_NOT_IN_SERVICE); the route must still be run (409 ROUTE_INACTIVE for one GET /routes shows active: false) ' +
      'and have stops (409 ROUTE_HAS_NO_STOPS); duration_minutes, when sent, must leave a minute for each leg besides ' +
      "the route's dwell times (400 DURATION_TOO_SHORT, details.minimum the shortest it takes); a driver must be an active DRIVER of " +
      "the company; the pickup stop must be an enabled public stop or one of the company's own points (400 " +
      "PICKUP_STOP_NOT_ALLOWED) in the route's origin city (400 PICKUP_STOP_WRONG_CITY). Another company's route, bus, " +
      'driver or trip is 404 ROUTE_NOT_FOUND, BUS_NOT_FOUND, DRIVER_NOT_FOUND, TRIP_NOT_FOUND. A new trip departs in ' +
      'the future (400 DEPARTURE_IN_PAST), arrives by the end of 9999-12-31 in Damascus (400 TRIP_AFTER_LAST_DATE) ' +
      'and gets its stop calls (stop, times, fare shares) from the route. The bus and ' +
      'driver must be free for the whole trip (a trip running late keeps them until its expected arrival) and the ' +
      'route must have no trip at that departure, counting trips of ' +
      'schedules still being committed (409 TRIP_CONFLICT with details.conflicts). With trip_id the trip is re-planned: ' +
      'a SCHEDULED trip keeps its route and times (409 TRIP_TIMETABLE_FIXED); once it ' +
      'has bookings (a held or sold seat) its bus and pickup stop stay (409 TRIP_HAS_BOOKINGS) while driver and fares ' +
      'may change. A BOARDING or DELAYED trip changes only its driver (so one whose driver was deactivated, or that ' +
      'has none, can still board and depart): the body repeats its route, departure_at, duration, bus, pickup stop ' +
      'and fares as they stand, else 409 TRIP_NOT_EDITABLE with details.status and details.fields (the body fields ' +
      'that differ); the new driver must be an active DRIVER of the company (404 DRIVER_NOT_FOUND) free for the ' +
      "trip's whole expected window, its delay included (409 TRIP_CONFLICT, kind DRIVER_BUSY); route, bus and stop " +
      'are not judged again and only the driver is written. From then on the driver app gives the trip to the new ' +
      'driver only (the previous one gets 403 TRIP_NOT_ASSIGNED on it; what they recorded, such as cash lines, stays ' +
      'theirs). A trip that has departed or is over is 409 TRIP_NOT_EDITABLE. Answers 201 for a new trip, 200 for a ' +
      're-planned one.',
    responses: {
      200: { description: 'Re-planned', schema: ok(Trip) },
      201: { description: 'Planned', schema: ok(Trip) },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  },
});
