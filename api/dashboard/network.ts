import {
  findPickupPoint,
  findRoute,
  listCities,
  listPickupPoints,
  listRoutes,
} from '../../db/queries/network.js';
import { createPickupLocation, createRoute, saveCity } from '../../db/writes/planning/network.js';
import type { AppContext } from '../app.js';
import { created, ok, page } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { authorize } from './guards.js';
import { CityBody, docs, PickupBody, PickupQuery, RouteBody, RoutesQuery } from './network.openapi.js';
import { planner, planningErrorCode, staffAct } from './planning-schemas.js';

/** The network a company plans on: cities, its routes with their stops, pickup locations. */
export function registerNetworkRoutes(surface: Surface, context: AppContext): void {
  registerCityRoutes(surface, context);
  registerRouteRoutes(surface, context);
  registerPickupRoutes(surface, context);
}

function registerCityRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listDashboardCities,
    method: 'get',
    path: '/cities',
    security: 'companyStaff',
    handler: async (ctx) => {
      authorize(ctx);
      ok(ctx, await listCities(db));
    },
  });

  surface.route({
    ...docs.addCity,
    method: 'post',
    path: '/cities',
    security: 'companyStaff',
    body: CityBody,
    errorCode: planningErrorCode,
    handler: async (ctx, { body }) => {
      const staff = planner(ctx);
      const { city, created } = await saveCity(db, staffAct(ctx, staff), {
        nameAr: body.name_ar,
        nameEn: body.name_en,
        latitude: body.latitude,
        longitude: body.longitude,
      });
      ctx.status = created ? 201 : 200;
      ctx.body = { success: true, data: city, created };
    },
  });
}

function registerRouteRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listDashboardRoutes,
    method: 'get',
    path: '/routes',
    security: 'companyStaff',
    query: RoutesQuery,
    handler: async (ctx, { query }) => {
      const staff = authorize(ctx);
      const { routes, total } = await listRoutes(db, staff.companyId, query);
      page(ctx, routes, query, total);
    },
  });

  surface.route({
    ...docs.createRoute,
    method: 'post',
    path: '/routes',
    security: 'companyStaff',
    body: RouteBody,
    errorCode: planningErrorCode,
    handler: async (ctx, { body }) => {
      const staff = planner(ctx);
      const { routeId } = await createRoute(db, staffAct(ctx, staff), {
        nameAr: body.name_ar,
        nameEn: body.name_en,
        distanceKm: body.distance_km,
        stops: body.stops.map((stop) => ({
          stopId: stop.stop_id,
          runningMinutes: stop.running_minutes,
          dwellMinutes: stop.dwell_minutes,
          fareShareBp: stop.fare_share_bp,
        })),
      });
      created(ctx, await findRoute(db, staff.companyId, routeId));
    },
  });
}

function registerPickupRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listPickupLocations,
    method: 'get',
    path: '/pickup-locations',
    security: 'companyStaff',
    query: PickupQuery,
    handler: async (ctx, { query }) => {
      const staff = authorize(ctx);
      ok(ctx, await listPickupPoints(db, staff.companyId, query.city_id));
    },
  });

  surface.route({
    ...docs.createPickupLocation,
    method: 'post',
    path: '/pickup-locations',
    security: 'companyStaff',
    body: PickupBody,
    errorCode: planningErrorCode,
    handler: async (ctx, { body }) => {
      const staff = planner(ctx);
      const { stopId } = await createPickupLocation(db, staffAct(ctx, staff), {
        cityId: body.city_id,
        kind: body.kind,
        nameAr: body.name,
        nameEn: body.nameEn ?? body.name,
        addressAr: body.address,
        addressEn: body.addressEn ?? body.address,
        directionsAr: body.directions,
        directionsEn: body.directionsEn ?? body.directions,
        latitude: body.latitude,
        longitude: body.longitude,
      });
      created(ctx, await findPickupPoint(db, staff.companyId, stopId));
    },
  });
}
