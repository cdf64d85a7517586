import { beforeAll, describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { dashboard, planningWorld, type PlanningWorld, type Session } from '../../support/planning.js';
import { staffSession } from '../../support/journey-rows.js';
import { createStaffMember, staffLogin, type StaffRole } from '../../support/staff.js';
import { suspendedWhileWriting } from '../../support/suspension.js';

/**
 * A company manages its team: PATCH /dashboard/api/team/{membershipId} changes a member's role or
 * deactivates the membership (SPEC "What the service does": companies manage their team).
 */
type Member = Session & { membershipId: string };

const today = () => new Date().toISOString().slice(0, 10);
const REVENUE = `/reports?type=revenue&format=json&locale=en&fromDate=${today()}&toDate=${today()}`;

describe('team: PATCH /team/{membershipId}', () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;
  const membershipOf: Record<string, string> = {};

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
    const rows = await app.db.query<{ id: string; staff_user_id: string }>(
      'select id, staff_user_id from company_memberships where company_id = any($1::uuid[])',
      [[world.companyId, other.companyId]],
    );
    for (const row of rows) membershipOf[row.staff_user_id] = row.id;
  });

  const owner = () => world.sessions.OWNER;
  const idOf = (session: Session) => membershipOf[session.staffUserId]!;

  /** A new member of `companyId` with a live session (the dashboard's, or a driver's for the driver app). */
  const join = (companyId: string, role: StaffRole): Promise<Member> =>
    staffSession(app.db, app.config, companyId, role);

  const change = (actor: Session, membershipId: string, body: unknown, headers?: Record<string, string>) =>
    dashboard(app, actor, 'PATCH', `/team/${membershipId}`, body, headers);

  const teamOf = async (reader: Session) => {
    const response = await dashboard(app, reader, 'GET', '/team?limit=100');
    expect(response.status, response.text).toBe(200);
    return response.body.data as { membershipId: string; role: string; status: string }[];
  };

  const auditOf = (companyId: string) =>
    app.db.query<{ actor_id: string; target_id: string; details: Record<string, unknown> }>(
      `select actor_id, target_id, details from audit_log
       where action = 'team.update' and details->>'companyId' = $1 order by id`,
      [companyId],
    );

  /** What a refused change must leave as it was: the team page, the audit log and the sessions. */
  const snapshot = async (companyId: string, reader: Session) => ({
    team: await teamOf(reader),
    audit: await auditOf(companyId),
    sessions: await app.db.query(
      `select s.id, s.revoked_at from staff_sessions s join company_memberships m on m.id = s.membership_id
       where m.company_id = $1 order by s.id`,
      [companyId],
    ),
  });

  it('deactivating a DISPATCHER ends its session at once, GET /team shows it INACTIVE; reactivation revives no session', async () => {
    const dispatcher = await join(world.companyId, 'DISPATCHER');
    expect((await dashboard(app, dispatcher, 'GET', '/team')).status).toBe(200);

    const deactivated = await change(owner(), dispatcher.membershipId, { active: false });
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.data).toMatchObject({
      membershipId: dispatcher.membershipId,
      userId: dispatcher.staffUserId,
      role: 'DISPATCHER',
      status: 'INACTIVE',
    });

    const next = await dashboard(app, dispatcher, 'GET', '/team');
    expect(next.status).toBe(401);
    const shown = (await teamOf(owner())).find((member) => member.membershipId === dispatcher.membershipId);
    expect(shown).toEqual(deactivated.body.data);
    expect((await auditOf(world.companyId)).at(-1)).toMatchObject({
      actor_id: owner().staffUserId,
      target_id: dispatcher.membershipId,
      details: {
        companyId: world.companyId,
        from: { role: 'DISPATCHER', active: true },
        to: { role: 'DISPATCHER', active: false },
        sessionsRevoked: 1,
      },
    });

    const reactivated = await change(owner(), dispatcher.membershipId, { active: true });
    expect(reactivated.status, reactivated.text).toBe(200);
    expect(reactivated.body.data.status).toBe('ACTIVE');
    expect((await dashboard(app, dispatcher, 'GET', '/team')).status).toBe(401);
  });

  it('a sign-in whose session would open after the membership is deactivated is refused: no session, and reactivation revives none', async () => {
    const dispatcher = await createStaffMember(app.db, world.companyId, 'DISPATCHER');
    // The membership is busy a moment: the deactivation waits for it, then the sign-in, which read
    // the membership active and checked the password, waits to open its session behind it.
    const held = await holdLock(
      app.db,
      `select 1 from company_memberships where id = '${dispatcher.membershipId}' for update`,
    );
    const deactivating = change(owner(), dispatcher.membershipId, { active: false });
    await waitersOf(app.db, held.pid, 1);
    const signingIn = staffLogin(app, { email: dispatcher.email, password: dispatcher.password });
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    expect((await deactivating).status).toBe(200);
    const late = await signingIn;
    expect({ status: late.response.status, errorCode: late.response.body?.errorCode }).toEqual({
      status: 401,
      errorCode: 'INVALID_CREDENTIALS',
    });
    expect(late.response.headers.getSetCookie()).toEqual([]);
    const sessions = await app.db.query('select 1 from staff_sessions where membership_id = $1', [
      dispatcher.membershipId,
    ]);
    expect(sessions).toEqual([]);

    expect((await change(owner(), dispatcher.membershipId, { active: true })).status).toBe(200);
    expect((await app.request('/dashboard/api/team', { headers: { Cookie: late.cookie } })).status).toBe(401);
  });

  it("a DISPATCHER made ACCOUNTANT reads revenue reports on the member's next request", async () => {
    const dispatcher = await join(world.companyId, 'DISPATCHER');
    const before = await dashboard(app, dispatcher, 'GET', REVENUE);
    expect(before.status).toBe(403);

    const changed = await change(world.sessions.ADMIN, dispatcher.membershipId, { role: 'ACCOUNTANT' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ role: 'ACCOUNTANT', status: 'ACTIVE' });

    const after = await dashboard(app, dispatcher, 'GET', REVENUE);
    expect(after.status, after.text).toBe(200);
  });

  it("a deactivated DRIVER's driver-app token is refused, also once the membership is reactivated", async () => {
    const driver = await join(world.companyId, 'DRIVER');
    expect((await app.request('/driver/api/trips', { token: driver.token })).status).toBe(200);

    const deactivated = await change(world.sessions.ADMIN, driver.membershipId, { active: false });
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.data).toMatchObject({ role: 'DRIVER', status: 'INACTIVE' });
    const refused = await app.request('/driver/api/trips', { token: driver.token });
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 401,
      errorCode: 'INVALID_CREDENTIAL',
    });

    expect((await change(world.sessions.ADMIN, driver.membershipId, { active: true })).status).toBe(200);
    expect((await app.request('/driver/api/trips', { token: driver.token })).status).toBe(401);
  });

  it("an OWNER makes an ADMIN OWNER, who changes an OWNER's membership on their next request", async () => {
    const admin = await join(world.companyId, 'ADMIN');
    const otherOwner = await join(world.companyId, 'OWNER');
    const refused = await change(admin, otherOwner.membershipId, { role: 'ADMIN' });
    expect(refused.status).toBe(403);

    const promoted = await change(owner(), admin.membershipId, { role: 'OWNER' });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.data.role).toBe('OWNER');
    const demoted = await change(admin, otherOwner.membershipId, { role: 'ADMIN' });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.body.data.role).toBe('ADMIN');
  });

  it('a change that changes nothing answers the member and records nothing', async () => {
    const staff = await join(world.companyId, 'STAFF');
    const before = await snapshot(world.companyId, owner());
    const same = await change(owner(), staff.membershipId, { role: 'STAFF', active: true });
    expect(same.status, same.text).toBe(200);
    expect(same.body.data).toMatchObject({
      membershipId: staff.membershipId,
      role: 'STAFF',
      status: 'ACTIVE',
    });
    expect(await snapshot(world.companyId, owner())).toEqual(before);
  });

  describe('refusals: a 4xx with its errorCode, and the team, the audit log and the sessions unchanged', () => {
    let secondOwner: Member;
    let dispatcher: Member;
    let staff: Member;
    let driver: Member;

    beforeAll(async () => {
      secondOwner = await join(world.companyId, 'OWNER');
      dispatcher = await join(world.companyId, 'DISPATCHER');
      staff = await join(world.companyId, 'STAFF');
      driver = await join(world.companyId, 'DRIVER');
    });

    const cases: [string, () => [Session, string, unknown, Record<string, string>?], number, string][] = [
      [
        'an OWNER changing their own membership',
        () => [owner(), idOf(owner()), { role: 'ADMIN' }],
        403,
        'TEAM_SELF_CHANGE',
      ],
      [
        'an ADMIN deactivating their own membership',
        () => [world.sessions.ADMIN, idOf(world.sessions.ADMIN), { active: false }],
        403,
        'TEAM_SELF_CHANGE',
      ],
      [
        "an ADMIN changing an OWNER's membership",
        () => [world.sessions.ADMIN, secondOwner.membershipId, { active: false }],
        403,
        'ROLE_NOT_ALLOWED',
      ],
      [
        'an ADMIN making a DISPATCHER OWNER',
        () => [world.sessions.ADMIN, dispatcher.membershipId, { role: 'OWNER' }],
        403,
        'ROLE_NOT_ALLOWED',
      ],
      [
        'a staff member made a DRIVER',
        () => [owner(), staff.membershipId, { role: 'DRIVER' }],
        422,
        'TEAM_ROLE_CHANGE_NOT_ALLOWED',
      ],
      [
        'a DRIVER made a DISPATCHER',
        () => [owner(), driver.membershipId, { role: 'DISPATCHER', active: true }],
        422,
        'TEAM_ROLE_CHANGE_NOT_ALLOWED',
      ],
      [
        "another company's membership",
        () => [owner(), idOf(other.sessions.STAFF), { active: false }],
        404,
        'NOT_FOUND',
      ],
      [
        'a DISPATCHER',
        () => [world.sessions.DISPATCHER, staff.membershipId, { active: false }],
        403,
        'ROLE_NOT_ALLOWED',
      ],
      [
        'a STAFF member',
        () => [world.sessions.STAFF, staff.membershipId, { role: 'ADMIN' }],
        403,
        'ROLE_NOT_ALLOWED',
      ],
      [
        'an ACCOUNTANT',
        () => [world.sessions.ACCOUNTANT, dispatcher.membershipId, { active: false }],
        403,
        'ROLE_NOT_ALLOWED',
      ],
      [
        'a write without the CSRF header',
        () => [owner(), dispatcher.membershipId, { active: false }, { Cookie: owner().cookie }],
        403,
        'CSRF_TOKEN_INVALID',
      ],
      ['an empty body', () => [owner(), dispatcher.membershipId, {}], 400, 'VALIDATION_FAILED'],
      [
        'an unknown role',
        () => [owner(), dispatcher.membershipId, { role: 'BOSS' }],
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a body naming the company',
        () => [owner(), dispatcher.membershipId, { active: false, companyId: other.companyId }],
        400,
        'SESSION_FIELD_REFUSED',
      ],
    ];

    const named = cases.map(([name, request, status, errorCode]) => ({ name, request, status, errorCode }));

    it.each(named)('$name: $status $errorCode', async ({ request, status, errorCode }) => {
      const [actor, membershipId, body, headers] = request();
      const before = await snapshot(world.companyId, owner());
      const otherBefore = await snapshot(other.companyId, other.sessions.OWNER);
      const response = await change(actor, membershipId, body, headers);
      expect({ status: response.status, errorCode: response.body?.errorCode }, response.text).toEqual({
        status,
        errorCode,
      });
      expect(await snapshot(world.companyId, owner())).toEqual(before);
      expect(await snapshot(other.companyId, other.sessions.OWNER)).toEqual(otherBefore);
    });
  });

  it('two OWNERs demoting or deactivating each other at the same moment: one succeeds, the other is refused as it now stands', async () => {
    // The second change is judged on its actor as the first left them: an ADMIN no longer changes an
    // OWNER, a STAFF member manages no team, a deactivated member's session has ended.
    for (const [round, [body, refusal]] of [
      [{ role: 'ADMIN' }, '403 ROLE_NOT_ALLOWED'],
      [{ active: false }, '401 INVALID_CREDENTIAL'],
      [{ role: 'STAFF' }, '403 ROLE_NOT_ALLOWED'],
      [{ active: false }, '401 INVALID_CREDENTIAL'],
    ].entries()) {
      const company = await createCompany(app.db);
      const first = await join(company.id, 'OWNER');
      const second = await join(company.id, 'OWNER');
      // Both requests are let in as OWNERs and meet at the company's lock, held here until both wait on it.
      const held = await holdLock(app.db, `select id from companies where id = '${company.id}' for update`);
      const answers = Promise.all([
        change(first, second.membershipId, body),
        change(second, first.membershipId, body),
      ]);
      try {
        await answeredOrWaiting(answers, app.db, held.pid, 2);
      } finally {
        await held.release();
      }
      const outcomes = (await answers).map((answer) =>
        `${answer.status} ${answer.body?.errorCode ?? ''}`.trim(),
      );
      expect(outcomes.sort(), `round ${round}`).toEqual(['200', refusal]);
      const [owners] = await app.db.query<{ n: number }>(
        `select count(*)::int as n from company_memberships m join staff_users u on u.id = m.staff_user_id
         where m.company_id = $1 and m.role = 'OWNER' and m.active and u.status = 'ACTIVE'`,
        [company.id],
      );
      expect(owners!.n, `round ${round}`).toBe(1);
      expect(await auditOf(company.id), `round ${round}`).toHaveLength(1);
    }
  });

  it('an OWNER demoted while their change waits for the company is judged on the new role, changing nothing', async () => {
    const notAllowed = (role: string, allowedRoles: string[]) => [
      403,
      'ROLE_NOT_ALLOWED',
      { role, allowedRoles },
    ];
    for (const [demotion, target, expected] of [
      ['STAFF', 'OWNER', notAllowed('STAFF', ['OWNER', 'ADMIN'])],
      ['ADMIN', 'OWNER', notAllowed('ADMIN', ['OWNER'])],
      ['ADMIN', 'STAFF', [200, undefined, undefined]],
    ] as const) {
      const company = await createCompany(app.db);
      const a = await join(company.id, 'OWNER');
      const b = await join(company.id, 'OWNER');
      const c = await join(company.id, target);
      // A's demotion of B waits for the company first, then B's change of C behind it.
      const held = await holdLock(app.db, `select id from companies where id = '${company.id}' for update`);
      let answers: Promise<Awaited<ReturnType<typeof change>>[]>;
      try {
        const demoted = change(a, b.membershipId, { role: demotion });
        await answeredOrWaiting(demoted, app.db, held.pid, 1);
        const byB = change(b, c.membershipId, { role: 'DISPATCHER' });
        await answeredOrWaiting(byB, app.db, held.pid, 2);
        answers = Promise.all([demoted, byB]);
      } finally {
        await held.release();
      }
      const [demoted, byB] = await answers;
      const round = `${demotion} changing ${target}`;
      expect(demoted!.status, demoted!.text).toBe(200);
      expect([byB!.status, byB!.body?.errorCode, byB!.body?.details], round).toEqual(expected);
      const [cRow] = await app.db.query<{ role: string }>(
        'select role from company_memberships where id = $1',
        [c.membershipId],
      );
      expect(cRow!.role, round).toBe(expected[0] === 200 ? 'DISPATCHER' : target);
      expect(await auditOf(company.id), round).toHaveLength(expected[0] === 200 ? 2 : 1);
    }
  });

  it('a change whose company is suspended while it waits for the company is refused 403 COMPANY_SUSPENDED, changing nothing', async () => {
    const company = await createCompany(app.db);
    const companyOwner = await join(company.id, 'OWNER');
    const staff = await join(company.id, 'STAFF');
    const before = await snapshot(company.id, companyOwner);
    const refused = await suspendedWhileWriting(app.db, company.id, () =>
      change(companyOwner, staff.membershipId, { active: false }),
    );
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await snapshot(company.id, companyOwner)).toEqual(before);
  });
});
