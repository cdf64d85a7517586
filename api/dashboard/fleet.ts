import { findBus, findDriver, listBuses, listDrivers, readBusLayouts } from '../../db/queries/fleet.js';
import { archiveLayout, createBus, createDriver, saveLayout } from '../../db/writes/planning/fleet.js';
import { BUS_TEMPLATES, busTemplate, coachLayout } from '../../domain/layout-templates.js';
import { layoutSeats, type LayoutDocument } from '../../domain/seat-layout.js';
import { DRIVER_ADMIN_ROLES, notFound, PlanningRefusal } from '../../domain/trip-planning.js';
import type { Database } from '../../db/orm.js';
import type { AppContext } from '../app.js';
import { hashPassword } from '../auth/passwords.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { BusBody, BusesQuery, docs, DriverBody, LayoutBody, layoutErrorCode } from './fleet.openapi.js';
import { authorize } from './guards.js';
import { companyPageRoute, companyRecordRoute, referenceReadRoute, staffRoute } from './staff-route.js';
import { driverManager, planner, planningCreateRoute, staffAct } from './planning-schemas.js';

/** The fleet: bus templates, buses, their seat layouts (GET/PUT/DELETE /buses/{id}/layout) and drivers. */
export function registerFleetRoutes(surface: Surface, context: AppContext): void {
  registerBusRoutes(surface, context);
  registerLayoutRoutes(surface, context);
  registerDriverRoutes(surface, context);
}

/** The bus and its layouts, or 404 for a bus of another company. */
async function busLayouts(db: Database, companyId: string, busId: string) {
  const bus = await findBus(db, companyId, busId);
  if (!bus) throw notFound('BUS');
  return { bus, ...(await readBusLayouts(db, busId)) };
}

/** The bus templates with the seat layout each one makes. */
function busTemplateViews() {
  return Object.values(BUS_TEMPLATES).map(({ options, ...template }) => {
    const layoutDocument = coachLayout(options);
    return {
      ...template,
      seat_count: layoutSeats(layoutDocument).length,
      decks: layoutDocument.grid.decks,
      layoutDocument,
    };
  });
}

function registerBusRoutes(surface: Surface, { db }: AppContext): void {
  referenceReadRoute(surface, { ...docs.listBusTemplates, path: '/bus-templates' }, busTemplateViews);

  const busesPage = { ...docs.listBuses, path: '/buses', query: BusesQuery };
  companyPageRoute(surface, busesPage, 'buses', (companyId, query) => listBuses(db, companyId, query));

  const busCreation = { ...docs.createBus, path: '/buses', body: BusBody };
  planningCreateRoute(surface, busCreation, async (act, body) => {
    const template = body.template_id === undefined ? null : busTemplate(body.template_id);
    if (template === undefined)
      throw new PlanningRefusal(400, 'TEMPLATE_NOT_FOUND', 'No bus template has this id');
    const { busId } = await createBus(db, act, {
      plateNumber: body.plate_number,
      model: body.model,
      amenities: body.amenities,
      template,
    });
    return busLayouts(db, act.companyId, busId);
  });
}

function registerLayoutRoutes(surface: Surface, { db }: AppContext): void {
  const layoutRead = { ...docs.getBusLayout, path: '/buses/{id}/layout' };
  companyRecordRoute(surface, authorize, layoutRead, (companyId, busId) => busLayouts(db, companyId, busId));

  staffRoute(surface, planner, {
    ...docs.putBusLayout,
    method: 'put',
    path: '/buses/{id}/layout',
    params: IdParams,
    body: LayoutBody,
    errorCode: layoutErrorCode,
    handler: async (ctx, staff, { params, body }) => {
      const document = (body.layoutDocument ?? body.layout_document) as LayoutDocument;
      await saveLayout(db, staffAct(ctx, staff), {
        busId: params.id,
        document,
        saveMode: body.saveMode,
        field: body.layoutDocument ? 'layoutDocument' : 'layout_document',
      });
      ok(ctx, await busLayouts(db, staff.companyId, params.id));
    },
  });

  staffRoute(surface, planner, {
    ...docs.deleteBusLayout,
    method: 'delete',
    path: '/buses/{id}/layout',
    params: IdParams,
    handler: async (ctx, staff, { params }) => {
      ok(ctx, await archiveLayout(db, staffAct(ctx, staff), params.id));
    },
  });
}

function registerDriverRoutes(surface: Surface, { db }: AppContext): void {
  const driversPage = { ...docs.listDrivers, path: '/drivers', query: BusesQuery };
  companyPageRoute(surface, driversPage, 'drivers', (companyId, query) => listDrivers(db, companyId, query));

  const driverCreation = {
    ...docs.createDriver,
    path: '/drivers',
    body: DriverBody,
    guard: driverManager,
    roles: DRIVER_ADMIN_ROLES,
  };
  planningCreateRoute(surface, driverCreation, async (act, body) => {
    const driver = await createDriver(db, act, {
      email: body.email.toLowerCase(),
      name: body.name,
      passwordHash: await hashPassword(body.password),
    });
    return findDriver(db, act.companyId, driver.id);
  });
}
