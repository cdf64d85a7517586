import { listActiveTrips, type ActiveTrip } from '../../db/queries/tracking.js';
import { reportAgeSeconds, trackingState } from '../../domain/trip-tracking.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { ActiveTripsQuery, docs } from './tracking.openapi.js';
import { companyPageRoute } from './staff-route.js';

function activeTripView(trip: ActiveTrip, now: Date) {
  const position = trip.lastPosition;
  // The database's clock stamped the receipt; a hair ahead of this process's still is not the future.
  const lastUpdate = position ? new Date(Math.min(Date.parse(position.reportedAt), now.getTime())) : null;
  return {
    trip_id: trip.id,
    status: trip.status,
    route: { name_ar: trip.route.nameAr, name_en: trip.route.nameEn },
    plate_number: trip.plateNumber,
    driver: trip.driver,
    departure_at: trip.departureAt,
    arrival_at: trip.arrivalAt,
    delay_minutes: trip.delayMinutes,
    actual_departure_at: trip.actualDepartureAt,
    tracking: {
      state: trackingState(lastUpdate, now),
      source: position ? ('DRIVER_APP' as const) : ('NONE' as const),
      last_update_at: lastUpdate?.toISOString() ?? null,
      age_seconds: lastUpdate ? reportAgeSeconds(lastUpdate, now) : null,
      position: position && {
        latitude: position.latitude,
        longitude: position.longitude,
        speed_kmh: position.speedKmh,
        heading: position.heading,
      },
    },
  };
}

/** GET /tracking/active-trips: live tracking of the company's trips under way. */
export function registerTrackingRoutes(surface: Surface, { db }: AppContext): void {
  const activeTrips = { ...docs.listActiveTrips, path: '/tracking/active-trips', query: ActiveTripsQuery };
  companyPageRoute(surface, activeTrips, 'trips', async (companyId, query) => {
    const { trips, total } = await listActiveTrips(db, companyId, query);
    const now = new Date();
    return { trips: trips.map((trip) => activeTripView(trip, now)), total };
  });
}
