import type { Database } from '../../db/orm.js';
import type { TestApp, TestResponse } from './harness.js';
import { staffSession } from './journey-rows.js';

/** The company's loyalty programme as the dashboard changes it: calls and a snapshot of its rows. */

export type StaffSessionFixture = Awaited<ReturnType<typeof staffSession>>;

export function programmeCall(
  app: TestApp,
  staff: Pick<StaffSessionFixture, 'writeHeaders'>,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  json?: unknown,
): Promise<TestResponse> {
  return app.request(`/dashboard/api${path}`, {
    method,
    headers: method === 'GET' ? { Cookie: staff.writeHeaders.Cookie! } : staff.writeHeaders,
    ...(json === undefined ? {} : { json }),
  });
}

export const PROGRAM = {
  nameAr: 'برنامج النجوم',
  nameEn: 'Stars programme',
  active: true,
  pointsPer100: 2,
  referralPoints: 100,
};

/** Every row of the company's programme, to prove that a refused request changed nothing. */
export async function programmeRows(db: Database, companyId: string) {
  const [program, tiers, rewards, accounts, ledger, vouchers] = await Promise.all([
    db.query(`select * from loyalty_programs where company_id = $1`, [companyId]),
    db.query(`select * from loyalty_tiers where company_id = $1 order by id`, [companyId]),
    db.query(`select * from loyalty_rewards where company_id = $1 order by id`, [companyId]),
    db.query(
      `select id, balance, lifetime_points, tier_id from loyalty_accounts where company_id = $1 order by id`,
      [companyId],
    ),
    db.query(
      `select id, kind, points, balance_after from loyalty_transactions where company_id = $1 order by id`,
      [companyId],
    ),
    db.query(`select id, status, terms from loyalty_redemptions where company_id = $1 order by id`, [
      companyId,
    ]),
  ]);
  return { program, tiers, rewards, accounts, ledger, vouchers };
}

/** A company with a programme set up through the API, and its owner. */
export async function companyWithProgramme(app: TestApp, companyId: string): Promise<StaffSessionFixture> {
  const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
  const response = await programmeCall(app, owner, 'PUT', '/loyalty', PROGRAM);
  if (response.status !== 200)
    throw new Error(`programme set-up failed: ${response.status} ${response.text}`);
  return owner;
}
