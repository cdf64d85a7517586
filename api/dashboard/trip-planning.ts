import { findPlanningTrip, listPlanningTrips } from '../../db/queries/planning-trips.js';
import { saveTrip } from '../../db/writes/planning/trips.js';
import type { AppContext } from '../app.js';
import { createdOrOk } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { authorize } from './guards.js';
import { staffRoute } from './staff-route.js';
import { planner, planningErrorCode, staffAct } from './planning-schemas.js';
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

  staffRoute(surface, planner, {
    ...docs.planTrip,
    method: 'post',
    path: '/trips',
    body: TripBody,
    errorCode: planningErrorCode,
    handler: async (ctx, staff, { body }) => {
      const { tripId, created } = await saveTrip(db, staffAct(ctx, staff), {
        tripId: body.trip_id,
        routeId: body.route_id,
        busId: body.bus_id,
        driverId: body.driver_id,
        pickupStopId: body.pickup_stop_id,
        departureAt: Date.parse(body.departure_at),
        durationMinutes: body.duration_minutes,
        priceBase: body.price_base,
        priceVip: body.price_vip,
      });
      createdOrOk(ctx, created, await findPlanningTrip(db, staff.companyId, tripId));
    },
  });
}
