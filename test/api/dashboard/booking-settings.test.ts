import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { suspendedWhileWriting } from '../../support/suspension.js';

const PATH = '/dashboard/api/settings/booking-confirmation';
const manual = {
  mode: 'MANUAL_CONFIRM',
  decisionWindowMinutes: 30,
  channels: ['CUSTOMER_WEB', 'CUSTOMER_MOBILE'],
};

describe('booking confirmation settings', () => {
  const app = useTestApp();

  async function storedSettings(companyId: string) {
    return app.db.query(
      'select mode, decision_window_minutes, channels, updated_by from company_booking_settings where company_id = $1',
      [companyId],
    );
  }

  async function auditEntries(companyId: string) {
    return app.db.query(
      `select actor_id, details from audit_log where action = 'company.booking_settings.update' and target_id = $1`,
      [companyId],
    );
  }

  function put(headers: Record<string, string>, json: unknown) {
    return app.request(PATH, { method: 'PUT', headers, json });
  }

  describe('an owner of a verified company', () => {
    let companyId: string;
    let owner: Awaited<ReturnType<typeof staffSession>>;

    beforeAll(async () => {
      companyId = (await createCompany(app.db)).id;
      owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    });

    it('reads the defaults before anything is saved: confirm at once on every channel', async () => {
      const response = await app.request(PATH, { headers: { Cookie: owner.cookie } });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        mode: 'AUTO_CONFIRM',
        decisionWindowMinutes: 15,
        channels: ['CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER'],
        updatedBy: null,
        updatedAt: null,
      });
    });

    it("saves them for the session's company, with the session's user as the actor", async () => {
      const response = await put(owner.writeHeaders, {
        ...manual,
        channels: ['CUSTOMER_MOBILE', 'CUSTOMER_WEB'],
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        ...manual,
        updatedBy: owner.staffUserId,
        updatedAt: expect.any(String),
      });
      expect(await storedSettings(companyId)).toEqual([
        {
          mode: 'MANUAL_CONFIRM',
          decision_window_minutes: 30,
          channels: ['CUSTOMER_WEB', 'CUSTOMER_MOBILE'],
          updated_by: owner.staffUserId,
        },
      ]);
      expect(await auditEntries(companyId)).toEqual([
        { actor_id: owner.staffUserId, details: expect.objectContaining({ mode: 'MANUAL_CONFIRM' }) },
      ]);

      const read = await app.request(PATH, { headers: { Cookie: owner.cookie } });
      expect(read.body.data).toMatchObject(manual);
    });

    it('replaces them on a second save and accepts both ends of the window', async () => {
      for (const decisionWindowMinutes of [15, 1440]) {
        const response = await put(owner.writeHeaders, {
          mode: 'MANUAL_CONFIRM',
          decisionWindowMinutes,
          channels: ['RESELLER'],
        });
        expect(response.status).toBe(200);
        expect(await storedSettings(companyId)).toMatchObject([
          { decision_window_minutes: decisionWindowMinutes, channels: ['RESELLER'] },
        ]);
      }
      const back = await put(owner.writeHeaders, manual);
      expect(back.status).toBe(200);
    });

    it('refuses a window outside 15..1440 minutes, no channels, an unknown channel or mode, and writes nothing', async () => {
      const refused = [
        { ...manual, decisionWindowMinutes: 14 },
        { ...manual, decisionWindowMinutes: 1441 },
        { ...manual, decisionWindowMinutes: 20.5 },
        { ...manual, decisionWindowMinutes: '30' },
        { ...manual, channels: [] },
        { ...manual, channels: ['CUSTOMER_WEB', 'CUSTOMER_WEB'] },
        { ...manual, channels: ['KIOSK'] },
        { ...manual, mode: 'SOMETIMES' },
        { mode: 'AUTO_CONFIRM', channels: ['CUSTOMER_WEB'] },
      ];
      const auditBefore = (await auditEntries(companyId)).length;
      for (const body of refused) {
        const response = await put(owner.writeHeaders, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.errorCode).toBe('VALIDATION_FAILED');
      }
      expect(await storedSettings(companyId)).toMatchObject([
        { mode: 'MANUAL_CONFIRM', decision_window_minutes: 30 },
      ]);
      expect(await auditEntries(companyId)).toHaveLength(auditBefore);
    });

    it('refuses a company or actor named in the body: the session decides both', async () => {
      const other = await createCompany(app.db);
      for (const extra of [
        { companyId: other.id },
        { company_id: other.id },
        { actorId: owner.staffUserId },
        { updatedBy: owner.staffUserId },
      ]) {
        const response = await put(owner.writeHeaders, {
          mode: 'AUTO_CONFIRM',
          decisionWindowMinutes: 60,
          channels: ['RESELLER'],
          ...extra,
        });
        expect(response.status).toBe(400);
        expect(response.body.errorCode).toBe('SESSION_FIELD_REFUSED');
      }
      expect(await storedSettings(other.id)).toEqual([]);
      expect(await storedSettings(companyId)).toMatchObject([
        { mode: 'MANUAL_CONFIRM', decision_window_minutes: 30 },
      ]);
    });

    it('refuses the company or the actor named in any spelling of the name, and writes nothing', async () => {
      const other = await createCompany(app.db);
      const auditBefore = (await auditEntries(companyId)).length;
      const answers: Record<string, string> = {};
      for (const [field, value] of [
        ['CompanyId', other.id],
        ['companyID', other.id],
        ['COMPANY_ID', other.id],
        ['company-id', other.id],
        ['actorID', owner.staffUserId],
        ['UpdatedBy', owner.staffUserId],
        ['updated-by', owner.staffUserId],
        ['USER_ID', owner.staffUserId],
        ['UserId', owner.staffUserId],
      ] as const) {
        const response = await put(owner.writeHeaders, {
          ...manual,
          decisionWindowMinutes: 90,
          [field]: value,
        });
        answers[field] = `${response.status} ${response.body?.errorCode}`;
      }
      expect(
        Object.values(answers).every((answer) => answer === '400 SESSION_FIELD_REFUSED'),
        JSON.stringify(answers),
      ).toBe(true);
      // Not a session field: any other unknown key stays VALIDATION_FAILED.
      const unknown = await put(owner.writeHeaders, {
        ...manual,
        decisionWindowMinutes: 90,
        companyName: 'x',
      });
      expect([unknown.status, unknown.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
      expect(await storedSettings(other.id)).toEqual([]);
      expect(await storedSettings(companyId)).toMatchObject([
        { mode: 'MANUAL_CONFIRM', decision_window_minutes: 30 },
      ]);
      expect(await auditEntries(companyId)).toHaveLength(auditBefore);
    });

    it('refuses a write without the CSRF header', async () => {
      const response = await put({ Cookie: owner.cookie }, { ...manual, decisionWindowMinutes: 90 });
      expect(response.status).toBe(403);
      expect(response.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      const wrong = await put(
        { Cookie: owner.cookie, 'X-CSRF-Token': 'guess' },
        { ...manual, decisionWindowMinutes: 90 },
      );
      expect(wrong.status).toBe(403);
      expect(await storedSettings(companyId)).toMatchObject([{ decision_window_minutes: 30 }]);
    });
  });

  it('lets an ADMIN save them too', async () => {
    const companyId = (await createCompany(app.db)).id;
    const admin = await staffSession(app.db, app.config, companyId, 'ADMIN');
    expect((await put(admin.writeHeaders, manual)).status).toBe(200);
    expect(await storedSettings(companyId)).toMatchObject([
      { mode: 'MANUAL_CONFIRM', updated_by: admin.staffUserId },
    ]);
  });

  it('refuses other roles, who may still read them', async () => {
    const companyId = (await createCompany(app.db)).id;
    for (const role of ['STAFF', 'DISPATCHER', 'ACCOUNTANT'] as const) {
      const member = await staffSession(app.db, app.config, companyId, role);
      const response = await put(member.writeHeaders, manual);
      expect(response.status).toBe(403);
      expect(response.body.errorCode).toBe('ROLE_NOT_ALLOWED');
      expect((await app.request(PATH, { headers: { Cookie: member.cookie } })).status).toBe(200);
    }
    expect(await storedSettings(companyId)).toEqual([]);
  });

  it('refuses an unverified or suspended company', async () => {
    const unverified = (await createCompany(app.db, { verified: false })).id;
    const owner = await staffSession(app.db, app.config, unverified, 'OWNER');
    const response = await put(owner.writeHeaders, manual);
    expect(response.status).toBe(403);
    expect(response.body.errorCode).toBe('COMPANY_NOT_VERIFIED');

    const suspended = (await createCompany(app.db, { status: 'SUSPENDED' })).id;
    const suspendedOwner = await staffSession(app.db, app.config, suspended, 'OWNER');
    const refused = await put(suspendedOwner.writeHeaders, manual);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('COMPANY_SUSPENDED');
    expect([...(await storedSettings(unverified)), ...(await storedSettings(suspended))]).toEqual([]);
  });

  it('refuses other roles and an unverified company before reading the body: 403 whatever is sent', async () => {
    const invalid = { mode: 'SOMETIMES', decisionWindowMinutes: 5, channels: [], companyId: 'x' };
    const companyId = (await createCompany(app.db)).id;
    for (const role of ['STAFF', 'DISPATCHER', 'ACCOUNTANT'] as const) {
      const member = await staffSession(app.db, app.config, companyId, role);
      const response = await put(member.writeHeaders, invalid);
      expect([response.status, response.body.errorCode], role).toEqual([403, 'ROLE_NOT_ALLOWED']);
    }
    const unverified = (await createCompany(app.db, { verified: false })).id;
    const owner = await staffSession(app.db, app.config, unverified, 'OWNER');
    const refused = await put(owner.writeHeaders, invalid);
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_NOT_VERIFIED']);
    expect([...(await storedSettings(companyId)), ...(await storedSettings(unverified))]).toEqual([]);
    expect([...(await auditEntries(companyId)), ...(await auditEntries(unverified))]).toEqual([]);
  });

  it('refuses a change whose company is suspended while it waits for the company (403 COMPANY_SUSPENDED), saving nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const refused = await suspendedWhileWriting(app.db, companyId, () => put(owner.writeHeaders, manual));
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await storedSettings(companyId)).toEqual([]);
    expect(await auditEntries(companyId)).toEqual([]);
  });

  it('needs a dashboard session', async () => {
    const response = await app.request(PATH, { method: 'PUT', json: manual });
    expect(response.status).toBe(401);
    const traveller = await app.tokenFor({ kind: 'PRODUCTION' });
    expect((await app.request(PATH, { token: traveller })).status).toBe(401);
  });
});
