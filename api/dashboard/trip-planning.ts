import { findPlanningTrip, listPlanningTrips } from '../../db/queries/planning-trips.js';
import { saveTrip } from '../../db/writes/planning/trips.js';
import { camelFields } from '../../db/row-fields.js';
import type { AppContext } from '../app.js';
import { createdOrOk } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { authorize } from './guards.js';
import { staffRoute } from './staff-route.js';
import { planningWriteRoute } from './planning-schemas.js';
import { docs, TripBody, TripsQuery } from './trip-planning.openapi.js';

/** GET /trips (the planning list with status counters) and POST /trips (plan or re-plan a trip). */
export function registerTripPlanningRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, authorize, {
    ...docs.listPlanningTrips,
    method: 'get',
    path: '/trips',
    query: TripsQuery,
    handler: async (ctx, staff, { query }) => {
      const { trips, counters, total } = await listPlanningTrips(
        db,
        staff.companyId,
        { date: query.date, status: query.status, routeId: query.route_id, busId: query.bus_id },
        query,
      );
      ctx.body = {
        success: true,
        data: trips,
        counters,
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });

  const tripPlan = { ...docs.planTrip, path: '/trips', body: TripBody };
  planningWriteRoute(surface, tripPlan, async (ctx, act, body) => {
    const { tripId, created } = await saveTrip(db, act, {
      ...camelFields(body, [
        'trip_id',
        'route_id',
        'bus_id',
        'driver_id',
        'pickup_stop_id',
        'duration_minutes',
        'price_base',
        'price_vip',
      ]),
      departureAt: Date.parse(body.departure_at),
    });
    createdOrOk(ctx, created, await findPlanningTrip(db, act.companyId, tripId));
  });
}
