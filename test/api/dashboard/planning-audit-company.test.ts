import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { dashboard, planningWorld, type PlanningWorld } from '../../support/planning.js';

/**
 * SPEC (Administration): "company actions must stay traceable"; README: every staff change's audit
 * row names its company first. A staff account may belong to several companies (login takes
 * companyId), so a planning write's row — a city, a pickup point, a route, a bus, a driver — must
 * say which company it was written for, or an administrator cannot tell.
 */
describe('audit rows of a company member planning', () => {
  const app = useTestApp();
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
  });

  const companyOfRow = async (action: string, targetId: string) =>
    (
      await app.db.query<{ company_id: string | null }>(
        `select details->>'companyId' as company_id from audit_log where action = $1 and target_id = $2`,
        [action, targetId],
      )
    ).map((row) => row.company_id);

  it('name the company they were written for', async () => {
    const owner = world.sessions.OWNER;
    const tag = randomUUID().slice(0, 6);
    const created = async (path: string, json: unknown) => {
      const response = await dashboard(app, owner, 'POST', path, json);
      expect(response.status, response.text).toBe(201);
      // POST /buses answers the bus with its layout: { bus, layout }.
      return (response.body.data.bus?.id ?? response.body.data.id) as string;
    };
    const cityId = await created('/cities', {
      name_ar: `مدينة ${tag}`,
      name_en: `Town ${tag}`,
      latitude: 35.1,
      longitude: 36.5,
    });
    const pickupId = await created('/pickup-locations', {
      city_id: cityId,
      kind: 'BUS_STATION',
      name: `محطة ${tag}`,
      address: 'ساحة المدينة',
      latitude: 35.11,
      longitude: 36.51,
    });
    const routeId = await created('/routes', {
      stops: [
        { stop_id: world.originStop.id, running_minutes: 0, dwell_minutes: 0, fare_share_bp: 0 },
        { stop_id: world.destinationStop.id, running_minutes: 150, dwell_minutes: 0, fare_share_bp: 10_000 },
      ],
    });
    const busId = await created('/buses', { plate_number: `AU-${tag}`, template_id: 'standard-2x2' });
    const driverId = await created('/drivers', {
      email: `driver-${tag}@company.test`,
      name: 'Khaled Driver',
      password: 'long enough secret',
    });

    expect({
      city: await companyOfRow('catalogue.city.create', cityId),
      pickup: await companyOfRow('company.pickup_location.create', pickupId),
      route: await companyOfRow('company.route.create', routeId),
      bus: await companyOfRow('company.bus.create', busId),
      driver: await companyOfRow('company.driver.create', driverId),
    }).toEqual({
      city: [world.companyId],
      pickup: [world.companyId],
      route: [world.companyId],
      bus: [world.companyId],
      driver: [world.companyId],
    });
  });
});
