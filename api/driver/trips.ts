import type { AppContext } from '../app.js';
import { requestOrigin } from '../http/request-origin.js';
import { createdOrOk, ok, page } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import {
  driverManifest,
  driverTrips,
  recordCollectedCash,
  reportPositions,
  scanCredential,
} from '../use-cases/driver-app.js';
import { activeDriver, currentDriver } from './guards.js';
import { CashCollectionParams, docs, DriverTripsQuery, PositionsBody, ScanBody } from './trips.openapi.js';

/**
 * The driver app's trips: list, manifest, the scan and the cash taken at the door, position reports.
 * Bearer sessions, so no CSRF.
 */
export function registerDriverTripRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listDriverTrips,
    method: 'get',
    path: '/trips',
    security: 'driver',
    query: DriverTripsQuery,
    handler: async (ctx, { query }) => {
      const { trips, total } = await driverTrips(db, currentDriver(ctx), query);
      ctx.set('Cache-Control', 'private, no-store');
      page(ctx, trips, query, total);
    },
  });

  surface.route({
    ...docs.getDriverManifest,
    method: 'get',
    path: '/trips/{id}/manifest',
    security: 'driver',
    params: IdParams,
    handler: async (ctx, { params }) => {
      ctx.set('Cache-Control', 'private, no-store');
      ok(ctx, await driverManifest(db, currentDriver(ctx), params.id));
    },
  });

  surface.route({
    ...docs.scanBoardingCredential,
    method: 'post',
    path: '/trips/{id}/scan',
    security: 'driver',
    csrf: false,
    params: IdParams,
    body: ScanBody,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await scanCredential(db, activeDriver(ctx), params.id, body));
    },
  });

  // The driver took a traveller's cash at the door: a PENDING driver line the office verifies.
  surface.route({
    ...docs.recordCashCollection,
    method: 'post',
    path: '/trips/{id}/bookings/{bookingId}/cash-collection',
    security: 'driver',
    csrf: false,
    params: CashCollectionParams,
    handler: async (ctx, { params }) => {
      const { line, created } = await recordCollectedCash(db, activeDriver(ctx), {
        tripId: params.id,
        bookingId: params.bookingId,
        origin: requestOrigin(ctx),
      });
      createdOrOk(ctx, created, line);
    },
  });

  surface.route({
    ...docs.reportTripPositions,
    method: 'post',
    path: '/trips/{id}/positions',
    security: 'driver',
    csrf: false,
    params: IdParams,
    body: PositionsBody,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await reportPositions(db, activeDriver(ctx), params.id, body.positions));
    },
  });
}
