import {
  findPickupPoint,
  findRoute,
  listCities,
  listPickupPoints,
  listRoutes,
} from '../../db/queries/network.js';
import { createPickupLocation, createRoute, saveCity } from '../../db/writes/planning/network.js';
import { camelFields } from '../../db/row-fields.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { authorize } from './guards.js';
import { companyPageRoute, referenceReadRoute, staffRoute } from './staff-route.js';
import { CityBody, docs, PickupBody, PickupQuery, RouteBody, RoutesQuery } from './network.openapi.js';
import { planningCreateRoute, planningWriteRoute } from './planning-schemas.js';

/** The network a company plans on: cities, its routes with their stops, pickup locations. */
export function registerNetworkRoutes(surface: Surface, context: AppContext): void {
  registerCityRoutes(surface, context);
  registerRouteRoutes(surface, context);
  registerPickupRoutes(surface, context);
}

function registerCityRoutes(surface: Surface, { db }: AppContext): void {
  referenceReadRoute(surface, { ...docs.listDashboardCities, path: '/cities' }, () => listCities(db));

  const cityAddition = { ...docs.addCity, path: '/cities', body: CityBody };
  planningWriteRoute(surface, cityAddition, async (ctx, act, body) => {
    const fields = camelFields(body, ['name_ar', 'name_en', 'latitude', 'longitude']);
    const { city, created } = await saveCity(db, act, fields);
    // 201 when this call added the city, 200 when it was there; the answer says which beside the data.
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data: city, created };
  });
}

function registerRouteRoutes(surface: Surface, { db }: AppContext): void {
  const routesPage = { ...docs.listDashboardRoutes, path: '/routes', query: RoutesQuery };
  companyPageRoute(surface, routesPage, 'routes', (companyId, query) => listRoutes(db, companyId, query));

  const routeCreation = { ...docs.createRoute, path: '/routes', body: RouteBody };
  planningCreateRoute(surface, routeCreation, async (act, body) => {
    const { routeId } = await createRoute(db, act, {
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
    return findRoute(db, act.companyId, routeId);
  });
}

function registerPickupRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, authorize, {
    ...docs.listPickupLocations,
    method: 'get',
    path: '/pickup-locations',
    query: PickupQuery,
    handler: async (ctx, staff, { query }) => {
      ok(ctx, await listPickupPoints(db, staff.companyId, query.city_id));
    },
  });

  const pickupLocationCreation = {
    ...docs.createPickupLocation,
    path: '/pickup-locations',
    body: PickupBody,
  };
  planningCreateRoute(surface, pickupLocationCreation, async (act, body) => {
    const { stopId } = await createPickupLocation(db, act, {
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
    return findPickupPoint(db, act.companyId, stopId);
  });
}
