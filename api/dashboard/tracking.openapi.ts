import { z } from 'zod';
import { TRIP_STATUSES } from '../../domain/trip-dispatch.js';
import { LIVE_WITHIN_SECONDS, STALE_AFTER_SECONDS, TRACKING_STATES } from '../../domain/trip-tracking.js';
import { Pagination } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText as Id, pageWith } from '../http/answer-schemas.js';

/** The OpenAPI side of live tracking (api/dashboard/tracking.ts). */

export const ActiveTripsQuery = z.object(Pagination).strict();

export const ActiveTripsResponse = pageWith(
  z.object({
    trip_id: Id,
    status: z.enum(TRIP_STATUSES),
    route: z.object({ name_ar: z.string(), name_en: z.string() }),
    plate_number: z.string(),
    driver: z.object({ id: Id, name: z.string() }).nullable(),
    departure_at: DateTime,
    arrival_at: DateTime,
    delay_minutes: z.int(),
    actual_departure_at: DateTime.nullable(),
    tracking: z.object({
      state: z.enum(TRACKING_STATES),
      source: z.enum(['DRIVER_APP', 'NONE']),
      last_update_at: DateTime.nullable().meta({
        description:
          'when the last position was reported: the instant the driver app stamped on it, or when the server ' +
          'received it if that stamp is later (a phone clock running ahead); never later than now',
      }),
      age_seconds: z.int().nullable(),
      position: z
        .object({
          latitude: z.number(),
          longitude: z.number(),
          speed_kmh: z.number().nullable(),
          heading: z.number().nullable(),
        })
        .nullable(),
    }),
  }),
);

export const docs = taggedOperations(['Dashboard: trip operations'], {
  listActiveTrips: {
    summary: "The company's trips under way and where they are",
    description:
      "The session's company only; any dashboard role may read it. Active trips are those BOARDING, DELAYED, " +
      'DEPARTED or ARRIVED (not yet completed), earliest departure first, paginated (limit default 20, at most 100; ' +
      'offset). Each carries its state, its data source (DRIVER_APP when the driver app has reported a position, else ' +
      'NONE) and its last known update, classed LIVE (a report under ' +
      `${LIVE_WITHIN_SECONDS / 60} minutes old), DELAYED (older, up to ${STALE_AFTER_SECONDS / 60} minutes) or ` +
      'UNAVAILABLE (no report, or an older one); its age counts from last_update_at. Positions come from ' +
      'POST /driver/api/trips/{id}/positions. Always private, no-store.',
    responses: answers(200, 'The active trips', ActiveTripsResponse, [400, 401]),
  },
});
