import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashRecoveryCode, newTotpSecret } from '../../../api/auth/admin-second-factor.js';
import { hashSecret, newSecret } from '../../../api/auth/secrets.js';
import { demoAdminAccounts, DEMO_ADMIN_TOTP_SECRET, seedDemoAdmins } from '../../../db/seed/demo-admins.js';
import { ADMIN_PERMISSIONS } from '../../../domain/permissions.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { createCompany } from '../../support/factories.js';
import { AdminBrowser, auditRows, createAdmin, expectError, signedInAdmin, totpCode } from './helpers.js';

describe('administration sign-in', () => {
  // Every test here signs in from 127.0.0.1: the per-IP limit has its own test app below.
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  describe('e-mail and password', () => {
    it('opens a session in an HttpOnly, Secure, SameSite=Strict cookie and hands out the CSRF token', async () => {
      const admin = await createAdmin(app.db, { role: 'SUPPORT' });
      const browser = new AdminBrowser(app);
      const login = await browser.signIn({ email: admin.email.toUpperCase(), password: admin.password });

      expect(login.status).toBe(200);
      expect(login.body).toEqual({
        success: true,
        data: {
          admin: {
            id: admin.id,
            email: admin.email,
            name: 'Test Admin',
            role: 'SUPPORT',
            permissions: [
              'companies.view',
              'tickets.view',
              'tickets.manage',
              'platform.view',
              'incidents.manage',
            ],
          },
          secondFactorRequired: false,
          enrolmentRequired: false,
          csrfToken: browser.csrf,
          expiresAt: expect.any(Number),
        },
      });
      // 8 hours from now.
      expect(login.body.data.expiresAt - Date.now() / 1000).toBeGreaterThan(8 * 3600 - 60);
      expect(login.body.data.expiresAt - Date.now() / 1000).toBeLessThanOrEqual(8 * 3600);
      const [sessionCookie] = login.headers.getSetCookie().filter((cookie) => cookie.startsWith('bb_admin='));
      expect(sessionCookie?.toLowerCase()).toMatch(/path=\/admin\/api/);
      expect(sessionCookie?.toLowerCase()).toContain('httponly');
      expect(sessionCookie?.toLowerCase()).toContain('secure');
      expect(sessionCookie?.toLowerCase()).toContain('samesite=strict');
      const [csrfCookie] = login.headers
        .getSetCookie()
        .filter((cookie) => cookie.startsWith('bb_admin_csrf='));
      expect(csrfCookie?.toLowerCase()).not.toContain('httponly');

      const permissions = await browser.get('/permissions');
      expect(permissions.status).toBe(200);
      expect(permissions.body.data.mine).toEqual({
        role: 'SUPPORT',
        grantedPermissions: [],
        permissions: [
          'companies.view',
          'tickets.view',
          'tickets.manage',
          'platform.view',
          'incidents.manage',
        ],
      });

      const [stored] = await app.db.query<{ token_hash: string }>(
        'select token_hash from admin_sessions where admin_id = $1',
        [admin.id],
      );
      expect(stored!.token_hash).toBe(hashSecret(browser.token));
      expect((await auditRows(app.db, admin.id)).map((row) => [row.actor_id, row.action])).toEqual([
        [admin.id, 'auth.login'],
      ]);
    });

    it('answers a wrong password, an unknown e-mail and a disabled account the same way', async () => {
      const admin = await createAdmin(app.db);
      const disabled = await createAdmin(app.db, { status: 'DISABLED' });
      const attempts = [
        { email: admin.email, password: 'not the password at all' },
        { email: `nobody-${randomUUID()}@test.example`, password: admin.password },
        { email: disabled.email, password: disabled.password },
      ];
      const answers = [];
      for (const attempt of attempts) {
        const response = await app.request('/admin/api/auth/login', { method: 'POST', json: attempt });
        expectError(response, 401, 'INVALID_CREDENTIALS');
        expect(response.headers.getSetCookie()).toEqual([]);
        answers.push({ errorCode: response.body.errorCode, message: response.body.message });
      }
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
      const sessions = await app.db.query('select 1 from admin_sessions where admin_id = any($1::uuid[])', [
        [admin.id, disabled.id],
      ]);
      expect(sessions).toEqual([]);
      expect((await auditRows(app.db, admin.id)).map((row) => row.action)).toEqual(['auth.login_failed']);
    });

    it('refuses a sign-in whose session would open after a disable of the account: no session, and re-enabling revives none', async () => {
      const boss = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const admin = await createAdmin(app.db, { role: 'SUPPORT' });
      const late = new AdminBrowser(app);
      // The account's row is busy a moment: the disable waits for it, then the sign-in, which read
      // the account ACTIVE and checked the password, waits to open its session behind the disable.
      const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
      const disable = boss.browser.send('PATCH', `/admins/${admin.id}`, { status: 'DISABLED' });
      await waitersOf(app.db, held.pid, 1);
      const signIn = late.signIn(admin);
      await waitersOf(app.db, held.pid, 2);
      await held.release();
      expect((await disable).status).toBe(200);
      const refused = await signIn;
      expectError(refused, 401, 'INVALID_CREDENTIALS');
      expect(refused.headers.getSetCookie()).toEqual([]);
      const sessions = await app.db.query('select 1 from admin_sessions where admin_id = $1', [admin.id]);
      expect(sessions).toEqual([]);
      const signIns = (await auditRows(app.db, admin.id)).filter((row) => row.action.startsWith('auth.'));
      expect(signIns.map((row) => row.action)).toEqual(['auth.login_failed']);

      expect((await boss.browser.send('PATCH', `/admins/${admin.id}`, { status: 'ACTIVE' })).status).toBe(
        200,
      );
      expect((await late.get('/permissions')).status).toBe(401);
    });

    it('limits attempts per e-mail address: the 11th within 15 minutes gets 429 with Retry-After', async () => {
      const email = `target-${randomUUID()}@test.example`;
      for (let attempt = 0; attempt < 10; attempt++) {
        const response = await app.request('/admin/api/auth/login', {
          method: 'POST',
          json: { email, password: `guess ${attempt}` },
        });
        expect(response.status).toBe(401);
      }
      const limited = await app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email, password: 'guess 11' },
      });
      expectError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    });

    it('answers at most 10 wrong-password guesses for one account, even when they arrive together', async () => {
      const admin = await createAdmin(app.db, { role: 'SUPPORT' });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, attempt) =>
          app.request('/admin/api/auth/login', {
            method: 'POST',
            json: { email: admin.email, password: `guess ${attempt} ${randomUUID()}` },
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect({
        checked: statuses.filter((status) => status === 401).length,
        limited: statuses.filter((status) => status === 429).length,
      }).toEqual({ checked: 10, limited: 20 });
    });

    it('counts only failures: 12 right passwords of one account sent together all sign in', async () => {
      const admin = await createAdmin(app.db, { role: 'SUPPORT' });
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => new AdminBrowser(app).signIn(admin)),
      );
      expect(answers.map((answer) => [answer.status, answer.body.errorCode ?? null])).toEqual(
        Array.from({ length: 12 }, () => [200, null]),
      );
      const sessions = await app.db.query('select 1 from admin_sessions where admin_id = $1', [admin.id]);
      expect(sessions.length).toBe(12);
    });

    it('refuses bodies that are not an e-mail and a password before looking anything up', async () => {
      const response = await app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email: 'x@test.example', password: 'p', remember: true },
      });
      expectError(response, 400, 'VALIDATION_FAILED');
    });
  });

  describe('TOTP second factor', () => {
    it('limits a session to the second-factor routes until a code is given, then replaces the session', async () => {
      const admin = await createAdmin(app.db, { role: 'SUPER_ADMIN', totp: true, totpRequired: true });
      const browser = new AdminBrowser(app);
      const login = await browser.signIn(admin);
      expect(login.status).toBe(200);
      expect(login.body.data).toMatchObject({ secondFactorRequired: true, enrolmentRequired: false });

      const blocked = await browser.get('/admins');
      expectError(blocked, 403, 'SECOND_FACTOR_REQUIRED');
      expect(blocked.body.details).toEqual({ enrolmentRequired: false });
      expectError(await browser.get('/permissions'), 403, 'SECOND_FACTOR_REQUIRED');
      const status = await browser.get('/security/2fa');
      expect(status.status).toBe(200);
      expect(status.body.data).toMatchObject({
        enabled: true,
        required: true,
        sessionSecondFactorPending: true,
      });

      const limitedToken = browser.token;
      const limitedCsrf = browser.csrf;
      const verified = await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) });
      expect(verified.status).toBe(200);
      expect(verified.body.data).toEqual({
        secondFactorRequired: false,
        csrfToken: browser.csrf,
        expiresAt: login.body.data.expiresAt,
      });
      expect(browser.token).not.toBe(limitedToken);
      expect(browser.csrf).not.toBe(limitedCsrf);

      expect((await browser.get('/admins')).status).toBe(200);
      const stale = await app.request('/admin/api/admins', {
        headers: { Cookie: `bb_admin=${limitedToken}` },
      });
      expectError(stale, 401, 'INVALID_CREDENTIAL');
      const actions = await app.db.query<{ action: string }>(
        'select action from audit_log where actor_id = $1 order by id',
        [admin.id],
      );
      expect(actions.map((row) => row.action)).toEqual(['auth.login', 'auth.second_factor', 'admins.list']);
    });

    it('refuses a wrong code, and a code already used by another sign-in', async () => {
      const admin = await createAdmin(app.db, { totp: true });
      const first = new AdminBrowser(app);
      await first.signIn(admin);
      const wrong = String((Number(totpCode(admin.totpSecret!)) + 500_000) % 1_000_000).padStart(6, '0');
      expectError(await first.send('POST', '/auth/2fa', { code: wrong }), 400, 'INVALID_SECOND_FACTOR');
      expectError(await first.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');

      const code = totpCode(admin.totpSecret!);
      expect((await first.send('POST', '/auth/2fa', { code })).status).toBe(200);

      const second = new AdminBrowser(app);
      await second.signIn(admin);
      expectError(await second.send('POST', '/auth/2fa', { code }), 400, 'INVALID_SECOND_FACTOR');
      expectError(await second.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');
      const actions = (await auditRows(app.db, admin.id)).map((row) => row.action);
      expect(actions.filter((action) => action === 'auth.second_factor_failed')).toHaveLength(2);
      expect(actions.filter((action) => action === 'auth.second_factor')).toHaveLength(1);
    });

    it('accepts each recovery code once', async () => {
      const codes = ['abcde-fghij', 'klmno-pqrst'];
      const admin = await createAdmin(app.db, {
        totp: true,
        recoveryCodeHashes: codes.map(hashRecoveryCode),
      });
      const first = new AdminBrowser(app);
      await first.signIn(admin);
      // Typed by hand: upper case, no dash.
      const used = await first.send('POST', '/auth/2fa', { recoveryCode: 'ABCDEFGHIJ' });
      expect(used.status).toBe(200);
      expect((await first.get('/security/2fa')).body.data.recoveryCodesLeft).toBe(1);

      const second = new AdminBrowser(app);
      await second.signIn(admin);
      expectError(
        await second.send('POST', '/auth/2fa', { recoveryCode: codes[0] }),
        400,
        'INVALID_SECOND_FACTOR',
      );
      expect((await second.send('POST', '/auth/2fa', { recoveryCode: codes[1] })).status).toBe(200);
      const [row] = await app.db.query<{ recovery_code_hashes: string[] }>(
        'select recovery_code_hashes from admins where id = $1',
        [admin.id],
      );
      expect(row!.recovery_code_hashes).toEqual([]);
      const verified = (await auditRows(app.db, admin.id)).filter(
        (entry) => entry.action === 'auth.second_factor',
      );
      expect(verified.map((entry) => entry.details)).toEqual([
        expect.objectContaining({ method: 'recovery_code', recoveryCodesLeft: 1 }),
        expect.objectContaining({ method: 'recovery_code', recoveryCodesLeft: 0 }),
      ]);
    });

    it('limits second-factor attempts per administrator: the 11th within 15 minutes gets 429', async () => {
      const admin = await createAdmin(app.db, { totp: true });
      const browser = new AdminBrowser(app);
      await browser.signIn(admin);
      const wrong = String((Number(totpCode(admin.totpSecret!)) + 500_000) % 1_000_000).padStart(6, '0');
      for (let attempt = 0; attempt < 10; attempt++) {
        expectError(await browser.send('POST', '/auth/2fa', { code: wrong }), 400, 'INVALID_SECOND_FACTOR');
      }
      expectError(
        await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) }),
        429,
        'RATE_LIMITED',
      );
      expectError(await browser.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');
    });

    it('counts only wrong codes: 11 sign-ins in a row each pass their second factor', async () => {
      const codes = Array.from({ length: 11 }, (_, n) => `rc${String(n).padStart(3, '0')}-abcde`);
      const admin = await createAdmin(app.db, {
        totp: true,
        recoveryCodeHashes: codes.map(hashRecoveryCode),
      });
      const answers: Array<[number, string | null]> = [];
      for (const recoveryCode of codes) {
        const browser = new AdminBrowser(app);
        expect((await browser.signIn(admin)).status).toBe(200);
        const answer = await browser.send('POST', '/auth/2fa', { recoveryCode });
        answers.push([answer.status, answer.body.errorCode ?? null]);
      }
      expect(answers).toEqual(Array.from({ length: 11 }, () => [200, null]));
    });

    it('does not count a refusal that is not a wrong code (409 SECOND_FACTOR_NOT_PENDING)', async () => {
      const { admin, browser } = await signedInAdmin(app, {
        totp: true,
        recoveryCodeHashes: [hashRecoveryCode('kept1-kept1')],
      });
      for (let attempt = 0; attempt < 11; attempt++) {
        expectError(
          await browser.send('POST', '/auth/2fa', { code: '000000' }),
          409,
          'SECOND_FACTOR_NOT_PENDING',
        );
      }
      const pending = new AdminBrowser(app);
      await pending.signIn(admin);
      const wrong = String((Number(totpCode(admin.totpSecret!)) + 500_000) % 1_000_000).padStart(6, '0');
      expectError(await pending.send('POST', '/auth/2fa', { code: wrong }), 400, 'INVALID_SECOND_FACTOR');
      expect((await pending.send('POST', '/auth/2fa', { recoveryCode: 'kept1-kept1' })).status).toBe(200);
    });

    it('answers at most 10 wrong codes for one administrator, even when they arrive together', async () => {
      const admin = await createAdmin(app.db, { totp: true });
      const browser = new AdminBrowser(app);
      await browser.signIn(admin);
      const right = Number(totpCode(admin.totpSecret!));
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          browser.send('POST', '/auth/2fa', {
            code: String((right + 1000 + n) % 1_000_000).padStart(6, '0'),
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect({
        judged: statuses.filter((status) => status === 400).length,
        limited: statuses.filter((status) => status === 429).length,
      }).toEqual({ judged: 10, limited: 20 });
    });

    it('makes an account that must use TOTP but has none set one up before anything else', async () => {
      const admin = await createAdmin(app.db, { role: 'ADMIN', totpRequired: true });
      const browser = new AdminBrowser(app);
      const login = await browser.signIn(admin);
      expect(login.body.data).toMatchObject({ secondFactorRequired: true, enrolmentRequired: true });
      const blocked = await browser.get('/admins');
      expectError(blocked, 403, 'SECOND_FACTOR_REQUIRED');
      expect(blocked.body.details).toEqual({ enrolmentRequired: true });
      expectError(
        await browser.send('POST', '/auth/2fa', { code: '123456' }),
        409,
        'SECOND_FACTOR_ENROLMENT_REQUIRED',
      );

      // A JSON null is a body, not "no body": refused, and no enrolment starts (schemathesis found a 201).
      const secretOf = async () =>
        (
          await app.db.query(
            'select totp_secret, totp_pending_secret, updated_at from admins where id = $1',
            [admin.id],
          )
        )[0];
      const before = await secretOf();
      expectError(await browser.send('POST', '/security/2fa', null), 400, 'VALIDATION_FAILED');
      expect(await secretOf()).toEqual(before);
      const enrol = await browser.send('POST', '/security/2fa', { password: admin.password });
      expect(enrol.status).toBe(201);
      const confirmed = await browser.send('PATCH', '/security/2fa', {
        code: totpCode(enrol.body.data.secret),
      });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.data.recoveryCodes).toHaveLength(10);
      expect((await browser.get('/admins')).status).toBe(200);
    });

    it('answers 401 to a code whose session is signed out meanwhile, and leaves the code unspent', async () => {
      const admin = await createAdmin(app.db, { totp: true });
      const browser = new AdminBrowser(app);
      expect((await browser.signIn(admin)).body.data.secondFactorRequired).toBe(true);
      const code = totpCode(admin.totpSecret!);
      const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
      const verify = browser.send('POST', '/auth/2fa', { code });
      await waitersOf(app.db, held.pid, 1);
      // The same browser signs out (another tab) while the code is being checked.
      expect((await browser.send('POST', '/auth/logout')).status).toBe(200);
      await held.release();
      expectError(await verify, 401, 'INVALID_CREDENTIAL');

      const again = new AdminBrowser(app);
      await again.signIn(admin);
      expect((await again.send('POST', '/auth/2fa', { code })).status).toBe(200);
    });

    it('answers 401 to a code of an administrator another one disables meanwhile', async () => {
      const boss = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const admin = await createAdmin(app.db, { role: 'SUPPORT', totp: true });
      const browser = new AdminBrowser(app);
      expect((await browser.signIn(admin)).body.data.secondFactorRequired).toBe(true);
      const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
      const disable = boss.browser.send('PATCH', `/admins/${admin.id}`, { status: 'DISABLED' });
      await waitersOf(app.db, held.pid, 1);
      const verify = browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) });
      await waitersOf(app.db, held.pid, 2);
      await held.release();
      expect((await disable).status).toBe(200);
      expectError(await verify, 401, 'INVALID_CREDENTIAL');
    });

    it('asks a session for the second factor once an administrator turns totpRequired on for the account', async () => {
      const { admin, browser } = await signedInAdmin(app, { role: 'SUPPORT' });
      expect((await browser.get('/permissions')).status).toBe(200);
      await app.db.query('update admins set totp_required = true where id = $1', [admin.id]);
      const blocked = await browser.get('/permissions');
      expectError(blocked, 403, 'SECOND_FACTOR_REQUIRED');
      expect(blocked.body.details).toEqual({ enrolmentRequired: true });
    });
  });

  describe('setting up, replacing and removing the authenticator', () => {
    it('enrols, confirms, replaces with a proof from the old one, and removes with a recovery code', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const other = new AdminBrowser(app);
      await other.signIn(admin);
      expect((await browser.get('/security/2fa')).body.data).toEqual({
        enabled: false,
        required: false,
        confirmedAt: null,
        enrolmentExpiresAt: null,
        recoveryCodesLeft: 0,
        sessionSecondFactorPending: false,
      });

      // Enrol: a secret waits until a code from it confirms it.
      const enrol = await browser.send('POST', '/security/2fa', { password: admin.password });
      expect(enrol.status).toBe(201);
      const first = enrol.body.data.secret as string;
      expect(enrol.body.data).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30 });
      expect(enrol.body.data.otpauthUrl).toBe(
        `otpauth://totp/Bus%20Booking%20Admin:${encodeURIComponent(admin.email)}?secret=${first}&issuer=Bus%20Booking%20Admin&algorithm=SHA1&digits=6&period=30`,
      );
      expect((await browser.get('/security/2fa')).body.data).toMatchObject({
        enabled: false,
        enrolmentExpiresAt: expect.any(String),
      });
      expectError(
        await browser.send('PATCH', '/security/2fa', { code: totpCode(newTotpSecret()) }),
        400,
        'INVALID_SECOND_FACTOR',
      );
      const confirmed = await browser.send('PATCH', '/security/2fa', { code: totpCode(first) });
      expect(confirmed.status).toBe(200);
      const firstCodes = confirmed.body.data.recoveryCodes as string[];
      expect(firstCodes).toHaveLength(10);
      expect(new Set(firstCodes).size).toBe(10);
      expect(confirmed.body.data.csrfToken).toBe(browser.csrf);
      expect((await browser.get('/security/2fa')).body.data).toMatchObject({
        enabled: true,
        recoveryCodesLeft: 10,
      });
      const [stored] = await app.db.query<{ recovery_code_hashes: string[] }>(
        'select recovery_code_hashes from admins where id = $1',
        [admin.id],
      );
      expect(stored!.recovery_code_hashes).toEqual(firstCodes.map(hashRecoveryCode));
      // The other browser's session ended when the authenticator changed.
      expectError(await other.get('/permissions'), 401, 'INVALID_CREDENTIAL');

      // Replace: needs a proof from the current authenticator; the old one keeps working until the new one is confirmed.
      expectError(await browser.send('POST', '/security/2fa'), 400, 'SECOND_FACTOR_PROOF_REQUIRED');
      const replace = await browser.send('POST', '/security/2fa', { recoveryCode: firstCodes[0] });
      expect(replace.status).toBe(201);
      const second = replace.body.data.secret as string;
      expect(second).not.toBe(first);
      const changed = await browser.send('PATCH', '/security/2fa', { code: totpCode(second) });
      expect(changed.status).toBe(200);
      const secondCodes = changed.body.data.recoveryCodes as string[];

      // The first authenticator and its recovery codes are gone.
      const [row] = await app.db.query<{ totp_secret: string }>(
        'select totp_secret from admins where id = $1',
        [admin.id],
      );
      expect(row!.totp_secret).toBe(second);
      expectError(
        await browser.send('DELETE', '/security/2fa', { recoveryCode: firstCodes[1] }),
        400,
        'INVALID_SECOND_FACTOR',
      );

      // Remove.
      const removed = await browser.send('DELETE', '/security/2fa', { recoveryCode: secondCodes[0] });
      expect(removed.status).toBe(200);
      expect(removed.body.data).toEqual({ enabled: false });
      const [cleared] = await app.db.query(
        'select totp_secret, totp_confirmed_at, recovery_code_hashes from admins where id = $1',
        [admin.id],
      );
      expect(cleared).toEqual({ totp_secret: null, totp_confirmed_at: null, recovery_code_hashes: [] });
      const again = await new AdminBrowser(app).signIn(admin);
      expect(again.body.data.secondFactorRequired).toBe(false);

      const actions = (await auditRows(app.db, admin.id)).map((entry) => entry.action);
      expect(actions.filter((action) => action.startsWith('security.'))).toEqual([
        'security.2fa_enrolment_started',
        'security.2fa_enabled',
        'security.2fa_enrolment_started',
        'security.2fa_changed',
        'security.2fa_removed',
      ]);
      const secrets = JSON.stringify(
        await app.db.query('select details from audit_log where target_id = $1', [admin.id]),
      );
      for (const secret of [first, second, ...firstCodes, ...secondCodes])
        expect(secrets).not.toContain(secret);
    });

    it('keeps the authenticator of an account that must use one, and a limited session cannot replace it', async () => {
      const codes = ['abcde-fghij', 'klmno-pqrst'];
      const admin = await createAdmin(app.db, {
        totp: true,
        totpRequired: true,
        recoveryCodeHashes: codes.map(hashRecoveryCode),
      });
      const limited = new AdminBrowser(app);
      await limited.signIn(admin);
      expectError(
        await limited.send('POST', '/security/2fa', { recoveryCode: codes[0] }),
        403,
        'SECOND_FACTOR_REQUIRED',
      );
      expectError(
        await limited.send('DELETE', '/security/2fa', { recoveryCode: codes[0] }),
        403,
        'SECOND_FACTOR_REQUIRED',
      );
      expect((await limited.send('POST', '/auth/2fa', { recoveryCode: codes[0] })).status).toBe(200);

      const refused = await limited.send('DELETE', '/security/2fa', { recoveryCode: codes[1] });
      expectError(refused, 409, 'SECOND_FACTOR_REQUIRED_BY_POLICY');
      const [row] = await app.db.query<{ totp_secret: string; recovery_code_hashes: string[] }>(
        'select totp_secret, recovery_code_hashes from admins where id = $1',
        [admin.id],
      );
      expect(row).toEqual({
        totp_secret: admin.totpSecret,
        recovery_code_hashes: [hashRecoveryCode(codes[1]!)],
      });
    });

    it('refuses confirming when no secret is waiting, or after it expired', async () => {
      const { admin, browser } = await signedInAdmin(app);
      expectError(
        await browser.send('PATCH', '/security/2fa', { code: '123456' }),
        409,
        'SECOND_FACTOR_ENROLMENT_NOT_STARTED',
      );
      const enrol = await browser.send('POST', '/security/2fa', { password: admin.password });
      await app.db.query(
        `update admins set totp_pending_expires_at = now() - interval '1 second' where id = $1`,
        [admin.id],
      );
      const late = await browser.send('PATCH', '/security/2fa', { code: totpCode(enrol.body.data.secret) });
      expectError(late, 409, 'SECOND_FACTOR_ENROLMENT_NOT_STARTED');
      expect((await browser.get('/security/2fa')).body.data).toMatchObject({
        enabled: false,
        enrolmentExpiresAt: null,
      });
    });

    it('needs the password before a session sets up its first authenticator: a stolen session cookie is not enough', async () => {
      const admin = await createAdmin(app.db, { role: 'SUPPORT' });
      const owner = new AdminBrowser(app);
      expect((await owner.signIn(admin)).status).toBe(200);
      // Whoever holds the cookie and CSRF token of the owner's second tab, but not the password.
      const thief = new AdminBrowser(app);
      expect((await thief.signIn(admin)).status).toBe(200);
      const pendingSecret = async () =>
        (
          await app.db.query<{ totp_pending_secret: string | null }>(
            'select totp_pending_secret from admins where id = $1',
            [admin.id],
          )
        )[0]!.totp_pending_secret;

      const bare = await thief.send('POST', '/security/2fa', {});
      expectError(bare, 400, 'SECOND_FACTOR_PROOF_REQUIRED');
      const guessed = await thief.send('POST', '/security/2fa', { password: 'a guess at the password' });
      expectError(guessed, 401, 'INVALID_CREDENTIALS');
      expect(await pendingSecret()).toBeNull();
      expectError(
        await thief.send('PATCH', '/security/2fa', { code: '123456' }),
        409,
        'SECOND_FACTOR_ENROLMENT_NOT_STARTED',
      );
      // The owner keeps their session, and their password alone still signs them in.
      expect((await owner.get('/permissions')).status).toBe(200);
      expect((await new AdminBrowser(app).signIn(admin)).body.data.secondFactorRequired).toBe(false);
      const failed = (await auditRows(app.db, admin.id)).filter((row) => row.action === 'auth.login_failed');
      expect(failed.map((row) => row.details)).toEqual([{ purpose: 'set_up_authenticator' }]);

      // With the password the first authenticator is set up as before.
      const enrol = await owner.send('POST', '/security/2fa', { password: admin.password });
      expect(enrol.status).toBe(201);
      const confirmed = await owner.send('PATCH', '/security/2fa', {
        code: totpCode(enrol.body.data.secret),
      });
      expect(confirmed.status).toBe(200);
      expectError(await thief.get('/permissions'), 401, 'INVALID_CREDENTIAL');
    });

    it('counts wrong passwords for a first authenticator in the second-factor attempt limit', async () => {
      const { admin, browser } = await signedInAdmin(app, { role: 'SUPPORT' });
      for (let attempt = 0; attempt < 10; attempt++) {
        expectError(
          await browser.send('POST', '/security/2fa', { password: `guess ${attempt} at the password` }),
          401,
          'INVALID_CREDENTIALS',
        );
      }
      expectError(
        await browser.send('POST', '/security/2fa', { password: admin.password }),
        429,
        'RATE_LIMITED',
      );
      expect((await browser.get('/permissions')).status).toBe(200);
    });

    it('ends the other sessions when the authenticator is removed: one that never gave a code does not get past the second factor', async () => {
      // An optional authenticator: whoever holds only the password is stopped at the second factor.
      const admin = await createAdmin(app.db, { role: 'SUPER_ADMIN', totp: true, totpRequired: false });
      const passwordOnly = new AdminBrowser(app);
      expect((await passwordOnly.signIn(admin)).body.data.secondFactorRequired).toBe(true);
      expectError(await passwordOnly.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');

      // The owner, in a session that gave its code, removes the authenticator.
      const owner = new AdminBrowser(app);
      await owner.signIn(admin);
      expect((await owner.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) })).status).toBe(200);
      const removed = await owner.send('DELETE', '/security/2fa', { code: totpCode(admin.totpSecret!, 1) });
      expect(removed.status).toBe(200);

      // The session that never gave its second factor has ended; it neither reads nor creates anything.
      const countAdmins = async () =>
        (await app.db.query<{ count: string }>('select count(*) from admins'))[0]!.count;
      const adminsBefore = await countAdmins();
      expectError(await passwordOnly.get('/admins'), 401, 'INVALID_CREDENTIAL');
      const create = await passwordOnly.send('POST', '/admins', {
        email: `escaped-${randomUUID().slice(0, 8)}@test.example`,
        name: 'Made Past The Factor',
        password: 'a long enough password',
        role: 'SUPER_ADMIN',
        totpRequired: false,
      });
      expectError(create, 401, 'INVALID_CREDENTIAL');
      expect(await countAdmins()).toBe(adminsBefore);
      // The session that removed it goes on; a new sign-in with the password alone is complete.
      expect((await owner.get('/admins')).status).toBe(200);
      expect((await new AdminBrowser(app).signIn(admin)).body.data.secondFactorRequired).toBe(false);
    });

    it('refuses removing the authenticator of an account disabled while the request waited: 401, authenticator kept', async () => {
      const boss = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const codes = ['abcde-fghij', 'klmno-pqrst'];
      const admin = await createAdmin(app.db, {
        totp: true,
        recoveryCodeHashes: codes.map(hashRecoveryCode),
      });
      const browser = new AdminBrowser(app);
      await browser.signIn(admin);
      expect((await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) })).status).toBe(
        200,
      );
      const factor = () =>
        app.db.query(
          'select status, totp_secret, totp_last_step, recovery_code_hashes from admins where id = $1',
          [admin.id],
        );
      const before = await factor();

      // The account's row is busy a moment: the disable queues first, the removal behind it.
      const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
      let disable;
      let removal;
      try {
        disable = boss.browser.send('PATCH', `/admins/${admin.id}`, { status: 'DISABLED' });
        await waitersOf(app.db, held.pid, 1);
        removal = browser.send('DELETE', '/security/2fa', { recoveryCode: codes[0] });
        await answeredOrWaiting(removal, app.db, held.pid, 2);
      } finally {
        await held.release();
      }
      expect((await disable).status).toBe(200);
      expectError(await removal, 401, 'INVALID_CREDENTIAL');

      // Nothing written: the authenticator and both recovery codes stay, and no security.* or failure row.
      expect(await factor()).toEqual([{ ...before[0], status: 'DISABLED' }]);
      const actions = (await auditRows(app.db, admin.id)).map((entry) => entry.action);
      expect(
        actions.filter((action) => action.startsWith('security.') || action.endsWith('_failed')),
      ).toEqual([]);
    });

    it('refuses starting or confirming an authenticator on an account disabled while the request waited: 401, nothing stored', async () => {
      const boss = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const { admin, browser } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const pending = () =>
        app.db.query('select status, totp_pending_secret, totp_secret from admins where id = $1', [admin.id]);

      const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
      let disable;
      let enrol;
      try {
        disable = boss.browser.send('PATCH', `/admins/${admin.id}`, { status: 'DISABLED' });
        await waitersOf(app.db, held.pid, 1);
        enrol = browser.send('POST', '/security/2fa', { password: admin.password });
        await answeredOrWaiting(enrol, app.db, held.pid, 2);
      } finally {
        await held.release();
      }
      expect((await disable).status).toBe(200);
      const answer = await enrol;
      expectError(answer, 401, 'INVALID_CREDENTIAL');
      expect(answer.body.data?.secret).toBeUndefined();
      expect(await pending()).toEqual([{ status: 'DISABLED', totp_pending_secret: null, totp_secret: null }]);

      // A set-up started before the disable is not confirmed by a code sent while it runs.
      const other = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
      const started = await other.browser.send('POST', '/security/2fa', { password: other.admin.password });
      expect(started.status).toBe(201);
      const lockAgain = await holdLock(
        app.db,
        `select 1 from admins where id = '${other.admin.id}' for update`,
      );
      let disableOther;
      let confirm;
      try {
        disableOther = boss.browser.send('PATCH', `/admins/${other.admin.id}`, { status: 'DISABLED' });
        await waitersOf(app.db, lockAgain.pid, 1);
        confirm = other.browser.send('PATCH', '/security/2fa', { code: totpCode(started.body.data.secret) });
        await answeredOrWaiting(confirm, app.db, lockAgain.pid, 2);
      } finally {
        await lockAgain.release();
      }
      expect((await disableOther).status).toBe(200);
      expectError(await confirm, 401, 'INVALID_CREDENTIAL');
      const [confirmedRow] = await app.db.query<{ totp_secret: string | null }>(
        'select totp_secret from admins where id = $1',
        [other.admin.id],
      );
      expect(confirmedRow!.totp_secret).toBeNull();

      for (const id of [admin.id, other.admin.id]) {
        const actions = (await auditRows(app.db, id)).map((entry) => entry.action);
        expect(actions.filter((action) => action.startsWith('security.2fa_e'))).toEqual(
          id === admin.id ? [] : ['security.2fa_enrolment_started'],
        );
      }
    });
  });

  describe('sessions', () => {
    it('ends at logout; the cookie is then refused', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const token = browser.token;
      const logout = await browser.send('POST', '/auth/logout');
      expect(logout.status).toBe(200);
      expect(logout.headers.getSetCookie().some((cookie) => cookie.startsWith('bb_admin=;'))).toBe(true);
      const [session] = await app.db.query<{ revoked_at: Date | null }>(
        'select revoked_at from admin_sessions where admin_id = $1',
        [admin.id],
      );
      expect(session!.revoked_at).not.toBeNull();
      const reused = await app.request('/admin/api/permissions', {
        headers: { Cookie: `bb_admin=${token}` },
      });
      expectError(reused, 401, 'INVALID_CREDENTIAL');
      expect((await auditRows(app.db, admin.id)).map((entry) => entry.action)).toEqual([
        'auth.login',
        'auth.logout',
      ]);
    });

    it('records a sign-out sent several times at once (a retry, a double click) once: one auth.logout per session', async () => {
      // The duplicates that pass authentication before the first sign-out commits still answer
      // 200 (the session is ended), the later ones 401; only the one that ended it is recorded.
      // The race is run on several sessions: each must end with one row.
      const admin = await createAdmin(app.db);
      for (let round = 0; round < 5; round++) {
        const browser = new AdminBrowser(app);
        expect((await browser.signIn(admin)).status).toBe(200);
        const headers = { Cookie: `bb_admin=${browser.token}`, 'X-CSRF-Token': browser.csrf };
        const answers = await Promise.all(
          Array.from({ length: 8 }, () => app.request('/admin/api/auth/logout', { method: 'POST', headers })),
        );
        expect(answers.map((answer) => answer.status)).toContain(200);
        for (const answer of answers) expect([200, 401]).toContain(answer.status);
      }
      const sessions = await app.db.query<{ id: string; revoked_at: Date | null }>(
        'select id, revoked_at from admin_sessions where admin_id = $1',
        [admin.id],
      );
      expect(sessions).toHaveLength(5);
      expect(sessions.filter((session) => session.revoked_at === null)).toEqual([]);
      const logouts = await app.db.query<{ session_id: string; n: number }>(
        `select details->>'sessionId' as session_id, count(*)::int as n from audit_log
          where actor_id = $1 and action = 'auth.logout' group by 1`,
        [admin.id],
      );
      expect(Object.fromEntries(logouts.map((row) => [row.session_id, row.n]))).toEqual(
        Object.fromEntries(sessions.map((session) => [session.id, 1])),
      );
    });

    it('refuses a write without the CSRF token, or with a wrong one, and changes nothing', async () => {
      const { admin, browser } = await signedInAdmin(app);
      expectError(
        await browser.send('POST', '/auth/logout', undefined, { csrf: null }),
        403,
        'CSRF_TOKEN_INVALID',
      );
      expectError(
        await browser.send('POST', '/auth/logout', undefined, { csrf: newSecret(24) }),
        403,
        'CSRF_TOKEN_INVALID',
      );
      expect((await browser.get('/permissions')).status).toBe(200);
      const [session] = await app.db.query<{ revoked_at: Date | null }>(
        'select revoked_at from admin_sessions where admin_id = $1',
        [admin.id],
      );
      expect(session!.revoked_at).toBeNull();
      expect((await auditRows(app.db, admin.id)).map((entry) => entry.action)).toEqual(['auth.login']);
    });

    it('ends after 30 minutes without a request, and 8 hours after sign-in whatever the activity', async () => {
      const idle = await signedInAdmin(app);
      await app.db.query(
        `update admin_sessions set last_seen_at = now() - interval '29 minutes' where admin_id = $1`,
        [idle.admin.id],
      );
      expect((await idle.browser.get('/permissions')).status).toBe(200);
      await app.db.query(
        `update admin_sessions set last_seen_at = now() - interval '31 minutes' where admin_id = $1`,
        [idle.admin.id],
      );
      expectError(await idle.browser.get('/permissions'), 401, 'INVALID_CREDENTIAL');

      const old = await signedInAdmin(app);
      await app.db.query(
        `update admin_sessions set expires_at = now() - interval '1 second' where admin_id = $1`,
        [old.admin.id],
      );
      expectError(await old.browser.get('/permissions'), 401, 'INVALID_CREDENTIAL');
    });

    it('ends when the administrator is disabled', async () => {
      const { admin, browser } = await signedInAdmin(app);
      await app.db.query(`update admins set status = 'DISABLED' where id = $1`, [admin.id]);
      expectError(await browser.get('/permissions'), 401, 'INVALID_CREDENTIAL');
    });

    it('is not opened by a traveller token or a company dashboard session', async () => {
      const travellerToken = await app.tokenFor({ kind: 'PRODUCTION' });
      const staffToken = await staffSessionToken();
      const attempts: [Record<string, string>, string][] = [
        [{}, 'AUTH_REQUIRED'],
        [{ Authorization: `Bearer ${travellerToken}` }, 'AUTH_REQUIRED'],
        [{ Cookie: `bb_access=${travellerToken}` }, 'AUTH_REQUIRED'],
        [{ Cookie: `bb_staff=${staffToken}` }, 'AUTH_REQUIRED'],
        [{ Cookie: `bb_admin=${travellerToken}` }, 'INVALID_CREDENTIAL'],
        [{ Cookie: `bb_admin=${staffToken}` }, 'INVALID_CREDENTIAL'],
      ];
      for (const [headers, errorCode] of attempts) {
        expectError(await app.request('/admin/api/permissions', { headers }), 401, errorCode);
      }
    });
  });

  describe('demo administrators', () => {
    it('sign in as documented: every permission without a second factor, SUPPORT, and one with the printed TOTP secret', async () => {
      await app.db.transaction((client) => seedDemoAdmins(client));
      const accounts = await demoAdminAccounts(app.db);
      expect(accounts.map((account) => [account.role, account.totpSecret])).toEqual([
        ['SUPER_ADMIN', null],
        ['SUPPORT', null],
        ['ADMIN', DEMO_ADMIN_TOTP_SECRET],
      ]);
      const [superAdmin, support, secure] = accounts.map(() => new AdminBrowser(app));
      const superLogin = await superAdmin!.signIn(accounts[0]!);
      expect(superLogin.body.data).toMatchObject({
        secondFactorRequired: false,
        admin: { permissions: [...ADMIN_PERMISSIONS] },
      });
      expect((await superAdmin!.get('/audit-log?limit=1')).status).toBe(200);

      expect((await support!.signIn(accounts[1]!)).body.data.secondFactorRequired).toBe(false);
      expectError(await support!.get('/admins'), 403, 'PERMISSION_DENIED');

      expect((await secure!.signIn(accounts[2]!)).body.data).toMatchObject({
        secondFactorRequired: true,
        enrolmentRequired: false,
      });
      expect(
        (await secure!.send('POST', '/auth/2fa', { code: totpCode(DEMO_ADMIN_TOTP_SECRET) })).status,
      ).toBe(200);
      expect((await secure!.get('/admins')).status).toBe(200);
    });
  });

  /** A live company dashboard session's cookie value. */
  async function staffSessionToken(): Promise<string> {
    const company = await createCompany(app.db);
    const [user] = await app.db.query<{ id: string }>(
      `insert into staff_users (email, password_hash) values ($1, 'x') returning id`,
      [`staff-${randomUUID()}@test.example`],
    );
    const [membership] = await app.db.query<{ id: string }>(
      `insert into company_memberships (company_id, staff_user_id, role) values ($1, $2, 'OWNER') returning id`,
      [company.id, user!.id],
    );
    const token = newSecret();
    await app.db.query(
      `insert into staff_sessions (staff_user_id, membership_id, token_hash, csrf_token_hash, expires_at)
       values ($1, $2, $3, $4, now() + interval '1 hour')`,
      [user!.id, membership!.id, hashSecret(token), hashSecret(newSecret())],
    );
    return token;
  }
});

describe('the second factor in production', () => {
  // In production whoever may change other accounts or the platform (admins.manage, companies.manage,
  // flags.manage, maintenance.manage) needs a second factor, whatever the role is called and whatever
  // the account's own flag says.
  const app = useTestApp({ NODE_ENV: 'production', ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('asks for it by the permissions held, not the role name: SUPPORT with every permission granted too', async () => {
    const everything = await createAdmin(app.db, {
      role: 'SUPPORT',
      grantedPermissions: [...ADMIN_PERMISSIONS],
      totpRequired: false,
    });
    const browser = new AdminBrowser(app);
    expect((await browser.signIn(everything)).body.data).toMatchObject({
      secondFactorRequired: true,
      enrolmentRequired: true,
    });
    expectError(await browser.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');

    for (const granted of [['flags.manage'], ['maintenance.manage'], ['companies.manage']] as const) {
      const admin = await createAdmin(app.db, { role: 'ANALYST', grantedPermissions: [...granted] });
      expect((await new AdminBrowser(app).signIn(admin)).body.data.secondFactorRequired, granted[0]).toBe(
        true,
      );
    }
    // Reading, tickets and incident notices alone do not need it.
    const reader = await createAdmin(app.db, {
      role: 'SUPPORT',
      grantedPermissions: ['audit.view', 'admins.view', 'analytics.view', 'waitlist.view'],
    });
    expect((await new AdminBrowser(app).signIn(reader)).body.data.secondFactorRequired).toBe(false);
  });

  it('keeps the second factor of a SUPER_ADMIN that re-labels itself SUPPORT with every permission granted', async () => {
    const admin = await createAdmin(app.db, { role: 'SUPER_ADMIN', totp: true, totpRequired: false });
    const browser = new AdminBrowser(app);
    expect((await browser.signIn(admin)).body.data.secondFactorRequired).toBe(true);
    expect((await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) })).status).toBe(200);

    // The same access under another name: allowed, and it changes nothing about the second factor.
    const relabel = await browser.send('PATCH', `/admins/${admin.id}`, {
      role: 'SUPPORT',
      grantedPermissions: [...ADMIN_PERMISSIONS],
    });
    expect(relabel.status).toBe(200);
    expect((await browser.get('/security/2fa')).body.data.required).toBe(true);
    const removed = await browser.send('DELETE', '/security/2fa', { code: totpCode(admin.totpSecret!, 1) });
    expectError(removed, 409, 'SECOND_FACTOR_REQUIRED_BY_POLICY');

    const passwordOnly = new AdminBrowser(app);
    expect((await passwordOnly.signIn(admin)).body.data.secondFactorRequired).toBe(true);
    const created = await passwordOnly.send('POST', '/admins', {
      email: `escaped-${randomUUID().slice(0, 8)}@test.example`,
      name: 'Made Without 2FA',
      password: 'a long enough password',
      role: 'SUPER_ADMIN',
      totpRequired: false,
    });
    expectError(created, 403, 'SECOND_FACTOR_REQUIRED');
  });

  it('GET /security/2fa says required for an ADMIN whose permissions need it, though the account flag does not', async () => {
    const { browser } = await signedInAdmin(app, { role: 'ADMIN', totp: true, totpRequired: false });
    expect((await browser.get('/security/2fa')).body.data).toMatchObject({ enabled: true, required: true });
    const support = await signedInAdmin(app, { role: 'SUPPORT', totpRequired: false });
    expect((await support.browser.get('/security/2fa')).body.data.required).toBe(false);
  });

  it('keeps the authenticator of an ADMIN whose role needs one, though the account flag does not', async () => {
    const admin = await createAdmin(app.db, { role: 'ADMIN', totp: true, totpRequired: false });
    const browser = new AdminBrowser(app);
    expect((await browser.signIn(admin)).body.data.secondFactorRequired).toBe(true);
    expect((await browser.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) })).status).toBe(200);

    const removed = await browser.send('DELETE', '/security/2fa', { code: totpCode(admin.totpSecret!, 1) });
    expectError(removed, 409, 'SECOND_FACTOR_REQUIRED_BY_POLICY');
    // Had it gone, the password alone would open a session that may enrol a new authenticator.
    const stranger = new AdminBrowser(app);
    expect((await stranger.signIn(admin)).body.data).toMatchObject({
      secondFactorRequired: true,
      enrolmentRequired: false,
    });
    expectError(await stranger.send('POST', '/security/2fa', {}), 403, 'SECOND_FACTOR_REQUIRED');
  });
});

describe('administration second-factor limits per address and per administrator', () => {
  // X-Forwarded-For names the client (as behind the load balancer); a ceiling of 15 across addresses.
  const app = useTestApp({
    ADMIN_LOGIN_MAX_PER_IP: 10_000,
    ADMIN_SECOND_FACTOR_MAX_PER_ADMIN: 15,
    TRUSTED_PROXY_HOPS: 1,
  });

  const wrongCode = (secret: string) =>
    String((Number(totpCode(secret)) + 500_000) % 1_000_000).padStart(6, '0');

  it('someone holding only the password cannot lock the administrator out from another address', async () => {
    const admin = await createAdmin(app.db, { totp: true });
    const attacker = new AdminBrowser(app, '203.0.113.66');
    await attacker.signIn(admin);
    for (let attempt = 0; attempt < 10; attempt++) {
      expectError(
        await attacker.send('POST', '/auth/2fa', { code: wrongCode(admin.totpSecret!) }),
        400,
        'INVALID_SECOND_FACTOR',
      );
    }
    expectError(
      await attacker.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) }),
      429,
      'RATE_LIMITED',
    );
    const owner = new AdminBrowser(app, '198.51.100.20');
    await owner.signIn(admin);
    const answer = await owner.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) });
    expect([answer.status, answer.body.errorCode ?? null]).toEqual([200, null]);
  });

  it('stops guessing spread over addresses at the ceiling per administrator', async () => {
    const admin = await createAdmin(app.db, { totp: true });
    const first = new AdminBrowser(app, '203.0.113.1');
    const second = new AdminBrowser(app, '203.0.113.2');
    await first.signIn(admin);
    await second.signIn(admin);
    for (let attempt = 0; attempt < 10; attempt++) {
      expectError(
        await first.send('POST', '/auth/2fa', { code: wrongCode(admin.totpSecret!) }),
        400,
        'INVALID_SECOND_FACTOR',
      );
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      expectError(
        await second.send('POST', '/auth/2fa', { code: wrongCode(admin.totpSecret!) }),
        400,
        'INVALID_SECOND_FACTOR',
      );
    }
    const third = new AdminBrowser(app, '203.0.113.3');
    await third.signIn(admin);
    expectError(
      await third.send('POST', '/auth/2fa', { code: totpCode(admin.totpSecret!) }),
      429,
      'RATE_LIMITED',
    );
    expectError(await third.get('/admins'), 403, 'SECOND_FACTOR_REQUIRED');
    expect(
      (await auditRows(app.db, admin.id)).filter((row) => row.action === 'auth.second_factor_failed').length,
    ).toBe(15);
  });
});

describe('administration sign-in limit per client IP', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 3 });

  it('refuses the 4th attempt from one IP whatever the e-mail, before checking anything', async () => {
    const admin = await createAdmin(app.db);
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email: `x${attempt}-${randomUUID()}@test.example`, password: 'x' },
      });
      expect(response.status).toBe(401);
    }
    expectError(
      await app.request('/admin/api/auth/login', {
        method: 'POST',
        json: { email: admin.email, password: admin.password },
      }),
      429,
      'RATE_LIMITED',
    );
    expect(await app.db.query('select 1 from admin_sessions where admin_id = $1', [admin.id])).toEqual([]);
  });
});

describe('administration sign-in limit per client IP, behind one address', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 3, TRUSTED_PROXY_HOPS: 1 });

  it('counts no successful sign-in: more administrators than the limit sign in from one address, and 3 wrong passwords still use it up', async () => {
    const address = `10.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}.7`;
    const signIn = (email: string, password: string) =>
      app.request('/admin/api/auth/login', {
        method: 'POST',
        headers: { 'X-Forwarded-For': address },
        json: { email, password },
      });
    const admins = [];
    for (let n = 0; n < 6; n++) admins.push(await createAdmin(app.db));
    const statuses: number[] = [];
    for (const admin of admins.slice(0, 5)) statuses.push((await signIn(admin.email, admin.password)).status);
    expect(statuses).toEqual(Array(5).fill(200));
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await signIn(`x${attempt}-${randomUUID()}@test.example`, 'x')).status).toBe(401);
    }
    const late = admins[5]!;
    expectError(await signIn(late.email, late.password), 429, 'RATE_LIMITED');
    expect(await app.db.query('select 1 from admin_sessions where admin_id = $1', [late.id])).toEqual([]);
  });
});
