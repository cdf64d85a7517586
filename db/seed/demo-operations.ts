import type { PoolClient } from 'pg';
import { DEMO_COMPANIES, demoUuid } from './demo-identities.js';
import { seedStaffMembers } from './demo-staff.js';

/**
 * The operations room's demo data: a driver for every active, published production company
 * (`driver@<company-slug>.demo`, the demo staff password, membership DRIVER), who signs in to the
 * driver app (POST /driver/api/auth/login) and is assigned the company's first departure of each
 * demo day. Only trips without a driver are assigned, so a rerun (or a driver set in the dashboard)
 * changes nothing. Development data only.
 */
export const DEMO_DRIVERS = DEMO_COMPANIES.filter(
  (company) => company.scope === 'PRODUCTION' && company.status === 'ACTIVE' && company.published,
).map((company) => {
  const email = `driver@${company.slug}.demo`;
  return {
    id: demoUuid('staff-user', email),
    membershipId: demoUuid('membership', company.id, email),
    email,
    name: `Driver, ${company.nameEn}`,
    role: 'DRIVER',
    companyId: company.id,
  };
});

export async function seedDemoOperations(client: PoolClient): Promise<void> {
  await seedStaffMembers(client, DEMO_DRIVERS);
  await client.query(
    `update trips t set driver_id = first.staff_user_id
     from (select distinct on (x.company_id, x.operating_date) x.id, m.staff_user_id
           from trips x join company_memberships m on m.company_id = x.company_id and m.id = any($1::uuid[]) and m.active
           order by x.company_id, x.operating_date, x.departure_at, x.id) first
     where t.id = first.id and t.driver_id is null`,
    [DEMO_DRIVERS.map((driver) => driver.membershipId)],
  );
}
