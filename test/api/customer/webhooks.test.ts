import { describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { suspendedWhileWriting } from '../../support/suspension.js';
import { apiKeyOf } from '../../support/webhooks.js';

const SECRET = 'a-signing-secret-of-enough-length';
const body = (url: string, events = ['booking.created']) => ({ url, events, secret: SECRET });

/**
 * `first` runs until it waits for the company row (held here for update, or for share when `second`
 * does not take it for update), then `second` runs and answers (its own request waits for nothing)
 * or waits behind `first`; then the row is let go. Answers both answers.
 */
async function inTurn(
  app: TestApp,
  companyId: string,
  second: 'answers' | 'waits',
  calls: { first: () => Promise<TestResponse>; second: () => Promise<TestResponse> },
  mode: 'update' | 'share' = 'update',
): Promise<readonly [TestResponse, TestResponse]> {
  const held = await holdLock(app.db, `select id from companies where id = '${companyId}' for ${mode}`);
  try {
    const one = calls.first();
    await answeredOrWaiting(one, app.db, held.pid, 1);
    const two = calls.second();
    if (second === 'answers') await two;
    else await answeredOrWaiting(two, app.db, held.pid, 2);
    await held.release();
    return [await one, await two] as const;
  } finally {
    await held.release();
  }
}

const subscriptionRows = (app: TestApp, companyId: string) =>
  app.db.query(
    `select id, url, events, secret, status from webhook_subscriptions where company_id = $1 order by id`,
    [companyId],
  );

describe('company API keys (dashboard)', () => {
  const app = useTestApp();

  it('an OWNER makes a key shown once; only its hash is stored; revoking it ends its use at once', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const made = await app.request('/dashboard/api/api-keys', {
      method: 'POST',
      headers: owner.writeHeaders,
      json: { name: 'booking sync' },
    });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.key as string;
    expect(key).toMatch(/^bbk_[A-Za-z0-9_-]{43}$/);
    const [stored] = await app.db.query<{ key_hash: string; key_prefix: string }>(
      `select key_hash, key_prefix from company_api_keys where id = $1`,
      [made.body.data.id],
    );
    expect(stored!.key_hash).not.toContain(key);
    expect(stored!.key_prefix).toBe(key.slice(0, 12));

    const list = await app.request('/dashboard/api/api-keys', { headers: { Cookie: owner.cookie } });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ name: 'booking sync', prefix: key.slice(0, 12) }),
    ]);
    expect(list.text).not.toContain(key);

    expect((await app.request('/api/webhooks', { token: key })).status).toBe(200);
    const revoked = await app.request(`/dashboard/api/api-keys/${made.body.data.id}`, {
      method: 'DELETE',
      headers: owner.writeHeaders,
    });
    expect(revoked.status, revoked.text).toBe(200);
    const after = await app.request('/api/webhooks', { token: key });
    expect(after.status).toBe(401);
    expect(after.body.errorCode).toBe('INVALID_CREDENTIAL');
    const audit = await app.db.query<{ action: string }>(
      `select action from audit_log where target_id = $1 order by created_at`,
      [made.body.data.id],
    );
    expect(audit.map((row) => row.action)).toEqual(['company.api_key.create', 'company.api_key.revoke']);
  });

  it('two managers revoking one key at once both see the first revocation, recorded once', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const admin = await staffSession(app.db, app.config, companyId, 'ADMIN');
    const key = await apiKeyOf(app, companyId);
    const [row] = await app.db.query<{ id: string }>(
      `select id from company_api_keys where key_prefix = $1`,
      [key.slice(0, 12)],
    );
    // Both read the key as live before either revokes it: the test holds the key's row meanwhile.
    const held = await holdLock(app.db, `select id from company_api_keys where id = '${row!.id}' for update`);
    const answers = Promise.all(
      [owner, admin].map((session) =>
        app.request(`/dashboard/api/api-keys/${row!.id}`, {
          method: 'DELETE',
          headers: session.writeHeaders,
        }),
      ),
    );
    await waitersOf(app.db, held.pid, 2);
    await held.release();

    const [first, second] = await answers;
    expect([first!.status, second!.status]).toEqual([200, 200]);
    expect(second!.body.data.revokedAt).toBe(first!.body.data.revokedAt);
    const revocations = await app.db.query(
      `select actor_id from audit_log where target_id = $1 and action = 'company.api_key.revoke'`,
      [row!.id],
    );
    expect(revocations).toHaveLength(1);
  });

  it('14 keys asked for at once: exactly 10 are made, the rest 409 API_KEY_LIMIT_REACHED', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, index) =>
        app.request('/dashboard/api/api-keys', {
          method: 'POST',
          headers: owner.writeHeaders,
          json: { name: `key ${index}` },
        }),
      ),
    );
    const outcomes = answers.map((answer) => `${answer.status} ${answer.body.errorCode ?? ''}`.trim());
    expect(outcomes.filter((outcome) => outcome === '201')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === '409 API_KEY_LIMIT_REACHED')).toHaveLength(4);
    const live = await app.db.query(
      `select id from company_api_keys where company_id = $1 and revoked_at is null`,
      [companyId],
    );
    expect(live).toHaveLength(10);
  });

  it('other roles, a missing CSRF header, a suspended company and another company are refused; nothing is made', async () => {
    const companyId = (await createCompany(app.db)).id;
    const dispatcher = await staffSession(app.db, app.config, companyId, 'DISPATCHER');
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const post = (headers: Record<string, string>, json: unknown = { name: 'x' }) =>
      app.request('/dashboard/api/api-keys', { method: 'POST', headers, json });
    expect((await post(dispatcher.writeHeaders)).body.errorCode).toBe('ROLE_NOT_ALLOWED');
    expect((await post({ Cookie: owner.cookie })).body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect((await post(owner.writeHeaders, { name: 'x', companyId })).status).toBe(400);
    expect((await post(owner.writeHeaders, { name: '' })).status).toBe(400);
    // Shown in the key list: no control or bidirectional-override characters.
    expect((await post(owner.writeHeaders, { name: 'web\u202Ehook' })).body.errorCode).toBe(
      'VALIDATION_FAILED',
    );
    expect((await post(owner.writeHeaders, { name: 'bell\u0007' })).body.errorCode).toBe('VALIDATION_FAILED');
    expect(await app.db.query(`select 1 from company_api_keys where company_id = $1`, [companyId])).toEqual(
      [],
    );

    const otherKey = await apiKeyOf(app, (await createCompany(app.db)).id);
    const [other] = await app.db.query<{ id: string }>(
      `select id from company_api_keys where key_prefix = $1`,
      [otherKey.slice(0, 12)],
    );
    const foreign = await app.request(`/dashboard/api/api-keys/${other!.id}`, {
      method: 'DELETE',
      headers: owner.writeHeaders,
    });
    expect(foreign.status).toBe(404);

    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [companyId]);
    expect((await post(owner.writeHeaders)).body.errorCode).toBe('COMPANY_SUSPENDED');
  });

  it('makes no key for a company whose suspension committed while the request waited for it (403 COMPANY_SUSPENDED)', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const refused = await suspendedWhileWriting(app.db, companyId, () =>
      app.request('/dashboard/api/api-keys', {
        method: 'POST',
        headers: owner.writeHeaders,
        json: { name: 'made during the suspension' },
      }),
    );
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await app.db.query(`select 1 from company_api_keys where company_id = $1`, [companyId])).toEqual(
      [],
    );
    expect(await app.db.query(`select 1 from audit_log where actor_id = $1`, [owner.staffUserId])).toEqual(
      [],
    );
  });
  describe('a manager changed while their request waits for the company is checked again: nothing is made', () => {
    const post = (session: { writeHeaders: Record<string, string> }, name: string) =>
      app.request('/dashboard/api/api-keys', {
        method: 'POST',
        headers: session.writeHeaders,
        json: { name },
      });
    const patchMember = (session: { writeHeaders: Record<string, string> }, id: string, json: unknown) =>
      app.request(`/dashboard/api/team/${id}`, { method: 'PATCH', headers: session.writeHeaders, json });
    const keysOf = (companyId: string) =>
      app.db.query(`select id, revoked_at from company_api_keys where company_id = $1 order by id`, [
        companyId,
      ]);
    const managers = async () => {
      const companyId = (await createCompany(app.db)).id;
      const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
      const member = await staffSession(app.db, app.config, companyId, 'OWNER');
      return { companyId, owner, member };
    };

    it('deactivated (401 INVALID_CREDENTIAL) or demoted to STAFF (403 ROLE_NOT_ALLOWED): no key, no audit row', async () => {
      for (const [change, expected] of [
        [{ active: false }, [401, 'INVALID_CREDENTIAL', undefined]],
        [{ role: 'STAFF' }, [403, 'ROLE_NOT_ALLOWED', { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN'] }]],
      ] as const) {
        const { companyId, owner, member } = await managers();
        const [changed, minted] = await inTurn(app, companyId, 'waits', {
          first: () => patchMember(owner, member.membershipId, change),
          second: () => post(member, 'after the change'),
        });
        expect(changed.status, changed.text).toBe(200);
        expect([minted.status, minted.body.errorCode, minted.body.details], minted.text).toEqual(expected);
        expect(await keysOf(companyId)).toEqual([]);
        const made = await app.db.query(`select 1 from audit_log where actor_id = $1`, [member.staffUserId]);
        expect(made).toEqual([]);
      }
    });

    it('signed out meanwhile: 401 INVALID_CREDENTIAL, no key; one made ADMIN still makes it (201)', async () => {
      const { companyId, owner, member } = await managers();
      const [minted, signedOut] = await inTurn(app, companyId, 'answers', {
        first: () => post(member, 'after my sign-out'),
        second: () =>
          app.request('/dashboard/api/auth/logout', { method: 'POST', headers: member.writeHeaders }),
      });
      expect(signedOut.status, signedOut.text).toBeLessThan(300);
      expect([minted.status, minted.body.errorCode], minted.text).toEqual([401, 'INVALID_CREDENTIAL']);
      expect(await keysOf(companyId)).toEqual([]);

      const admin = await staffSession(app.db, app.config, companyId, 'OWNER');
      const [demoted, made] = await inTurn(app, companyId, 'waits', {
        first: () => patchMember(owner, admin.membershipId, { role: 'ADMIN' }),
        second: () => post(admin, 'as an ADMIN'),
      });
      expect([demoted.status, made.status], made.text).toEqual([200, 201]);
      expect(await keysOf(companyId)).toHaveLength(1);
    });

    it('a manager deactivated while their DELETE /api-keys/{id} waits revokes nothing (401 INVALID_CREDENTIAL)', async () => {
      const { companyId, owner, member } = await managers();
      const made = await post(owner, 'kept');
      expect(made.status, made.text).toBe(201);
      const [deactivated, revoked] = await inTurn(app, companyId, 'waits', {
        first: () => patchMember(owner, member.membershipId, { active: false }),
        second: () =>
          app.request(`/dashboard/api/api-keys/${made.body.data.id}`, {
            method: 'DELETE',
            headers: member.writeHeaders,
          }),
      });
      expect(deactivated.status, deactivated.text).toBe(200);
      expect([revoked.status, revoked.body.errorCode], revoked.text).toEqual([401, 'INVALID_CREDENTIAL']);
      expect(await keysOf(companyId)).toEqual([{ id: made.body.data.id, revoked_at: null }]);
      expect((await app.request('/api/webhooks', { token: made.body.data.key })).status).toBe(200);
    });
  });
});

describe('POST, GET, PATCH, DELETE /api/webhooks (company API key)', () => {
  const app = useTestApp();

  it('subscribes, lists, reads, changes and deletes; the secret is never returned', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const created = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/hooks', ['booking.created', 'trip.started']),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      events: ['booking.created', 'trip.started'],
      status: 'ACTIVE',
    });
    expect(created.text).not.toContain(SECRET);
    const id = created.body.data.id as string;

    const list = await app.request('/api/webhooks', { token: key });
    expect(list.body.data.map((entry: { id: string }) => entry.id)).toEqual([id]);
    expect(list.text).not.toContain(SECRET);

    const patched = await app.request(`/api/webhooks/${id}`, {
      method: 'PATCH',
      token: key,
      json: { events: ['booking.cancelled'], enabled: false },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      events: ['booking.cancelled'],
      status: 'DISABLED',
      disabledReason: 'BY_COMPANY',
    });

    expect((await app.request(`/api/webhooks/${id}`, { method: 'DELETE', token: key })).status).toBe(200);
    expect((await app.request(`/api/webhooks/${id}`, { token: key })).status).toBe(404);
    expect((await app.request('/api/webhooks', { token: key })).body.data).toEqual([]);
  });

  it('refuses a missing or wrong key, bad input and another company’s subscription, changing nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const missing = await app.request('/api/webhooks', { method: 'POST', json: body('http://127.0.0.1:9/') });
    expect([missing.status, missing.body.errorCode]).toEqual([401, 'AUTH_REQUIRED']);
    const wrong = await app.request('/api/webhooks', {
      method: 'POST',
      token: 'bbk_not-a-key',
      json: body('http://127.0.0.1:9/'),
    });
    expect([wrong.status, wrong.body.errorCode]).toEqual([401, 'INVALID_CREDENTIAL']);

    const before = await subscriptionRows(app, companyId);
    for (const bad of [
      { ...body('http://127.0.0.1:9/'), companyId },
      { ...body('http://127.0.0.1:9/'), events: [] },
      { ...body('http://127.0.0.1:9/'), events: ['booking.created', 'booking.created'] },
      { ...body('http://127.0.0.1:9/'), events: ['booking.paid'] },
      { ...body('http://127.0.0.1:9/'), secret: 'short' },
      body('ftp://example.com/hook'),
      body('http://user:pass@127.0.0.1:9/'),
    ]) {
      const response = await app.request('/api/webhooks', { method: 'POST', token: key, json: bad });
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await subscriptionRows(app, companyId)).toEqual(before);

    const otherKey = await apiKeyOf(app, (await createCompany(app.db)).id);
    const theirs = await app.request('/api/webhooks', {
      method: 'POST',
      token: otherKey,
      json: body('http://127.0.0.1:9/'),
    });
    const path = `/api/webhooks/${theirs.body.data.id}`;
    expect((await app.request(path, { token: key })).status).toBe(404);
    expect((await app.request(path, { method: 'PATCH', token: key, json: { enabled: false } })).status).toBe(
      404,
    );
    expect((await app.request(path, { method: 'DELETE', token: key })).status).toBe(404);
    expect((await app.request(`${path}/deliveries`, { token: key })).status).toBe(404);
    expect((await app.request('/api/webhooks/not-a-uuid', { token: key })).status).toBe(400);
  });

  it('a suspended company cannot change its subscriptions', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [companyId]);
    const response = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/'),
    });
    expect([response.status, response.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await subscriptionRows(app, companyId)).toEqual([]);
  });

  it('a change whose company is suspended while it waits for the company is refused 403 COMPANY_SUSPENDED, changing nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const made = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/'),
    });
    expect(made.status, made.text).toBe(201);
    const path = `/api/webhooks/${made.body.data.id}`;
    const writes: [string, () => ReturnType<TestApp['request']>][] = [
      [
        'create',
        () =>
          app.request('/api/webhooks', { method: 'POST', token: key, json: body('http://127.0.0.1:9/b') }),
      ],
      ['update', () => app.request(path, { method: 'PATCH', token: key, json: { enabled: false } })],
      ['delete', () => app.request(path, { method: 'DELETE', token: key })],
    ];
    const before = await subscriptionRows(app, companyId);
    for (const [name, write] of writes) {
      const refused = await suspendedWhileWriting(app.db, companyId, write);
      expect([name, refused.status, refused.body?.errorCode], refused.text).toEqual([
        name,
        403,
        'COMPANY_SUSPENDED',
      ]);
      expect(await subscriptionRows(app, companyId), name).toEqual(before);
      await app.db.query(`update companies set status = 'ACTIVE' where id = $1`, [companyId]);
    }
    const audit = await app.db.query<{ action: string }>(
      `select action from audit_log where action like 'company.webhook.%' and details->>'companyId' = $1`,
      [companyId],
    );
    expect(audit.map((row) => row.action)).toEqual(['company.webhook.create']);
  });

  /** An OWNER's new key, and the two requests its races run: a subscription with it, and its revocation. */
  async function subscribeAndRevoke(companyId: string, name: string) {
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const made = await app.request('/dashboard/api/api-keys', {
      method: 'POST',
      headers: owner.writeHeaders,
      json: { name },
    });
    expect(made.status, made.text).toBe(201);
    const key: string = made.body.data.key;
    return {
      key,
      first: () =>
        app.request('/api/webhooks', { method: 'POST', token: key, json: body('http://127.0.0.1:9/') }),
      second: () =>
        app.request(`/dashboard/api/api-keys/${made.body.data.id}`, {
          method: 'DELETE',
          headers: owner.writeHeaders,
        }),
    };
  }

  it('a key revoked while its POST waits for the company makes no subscription (401 INVALID_CREDENTIAL)', async () => {
    const companyId = (await createCompany(app.db)).id;
    const { first, second } = await subscribeAndRevoke(companyId, 'revoked meanwhile');
    // The company row held for share: the POST (which takes it for update) waits, the revocation does not.
    const [subscribed, revoked] = await inTurn(app, companyId, 'answers', { first, second }, 'share');
    expect(revoked.status, revoked.text).toBe(200);
    expect([subscribed.status, subscribed.body.errorCode], subscribed.text).toEqual([
      401,
      'INVALID_CREDENTIAL',
    ]);
    expect(await subscriptionRows(app, companyId)).toEqual([]);
  });

  it('a change or a deletion whose key is revoked while it waits for the company is refused 401, changing nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const writes: [string, (key: string, path: string) => ReturnType<TestApp['request']>][] = [
      ['update', (key, path) => app.request(path, { method: 'PATCH', token: key, json: { enabled: false } })],
      ['delete', (key, path) => app.request(path, { method: 'DELETE', token: key })],
    ];
    for (const [name, write] of writes) {
      const key = await apiKeyOf(app, companyId);
      const made = await app.request('/api/webhooks', {
        method: 'POST',
        token: key,
        json: body(`http://127.0.0.1:9/${name}`),
      });
      expect(made.status, made.text).toBe(201);
      const before = await subscriptionRows(app, companyId);
      const held = await holdLock(app.db, `select id from companies where id = '${companyId}' for update`);
      try {
        const answer = write(key, `/api/webhooks/${made.body.data.id}`);
        await answeredOrWaiting(answer, app.db, held.pid, 1);
        // What DELETE /api-keys/{id} commits (it waits for the company row held here).
        await app.db.query(`update company_api_keys set revoked_at = now() where key_prefix = $1`, [
          key.slice(0, 12),
        ]);
        await held.release();
        const refused = await answer;
        expect([name, refused.status, refused.body?.errorCode], refused.text).toEqual([
          name,
          401,
          'INVALID_CREDENTIAL',
        ]);
      } finally {
        await held.release();
      }
      expect(await subscriptionRows(app, companyId), name).toEqual(before);
    }
  });

  it('a revocation waits for a write the key is making: the write is made, then the key is revoked', async () => {
    const companyId = (await createCompany(app.db)).id;
    const { key, first, second } = await subscribeAndRevoke(companyId, 'revoked after');
    const [subscribed, revoked] = await inTurn(app, companyId, 'waits', { first, second });
    expect([subscribed.status, revoked.status], subscribed.text).toEqual([201, 200]);
    expect(await subscriptionRows(app, companyId)).toHaveLength(1);
    expect((await app.request('/api/webhooks', { token: key })).status).toBe(401);
  });

  it('25 subscriptions at once: exactly 20 are made, the rest 409 WEBHOOK_LIMIT_REACHED', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        app.request('/api/webhooks', {
          method: 'POST',
          token: key,
          json: body(`http://127.0.0.1:9/${index}`),
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20);
    expect(answers.filter((answer) => answer.body?.errorCode === 'WEBHOOK_LIMIT_REACHED')).toHaveLength(5);
    expect(await subscriptionRows(app, companyId)).toHaveLength(20);
  });
});

describe('/api/webhooks in production mode (no local receivers)', () => {
  const app = useTestApp({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOCAL_TARGETS: false });

  it('refuses http, private, loopback, link-local and reserved addresses (IPv6 forms embedding IPv4 too) with WEBHOOK_URL_REFUSED, saving nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const refusals: [string, string][] = [
      ['http://hooks.example.com/a', 'HTTPS_REQUIRED'],
      ['https://10.1.2.3/hook', 'PRIVATE_ADDRESS'],
      ['https://127.0.0.1/hook', 'PRIVATE_ADDRESS'],
      ['https://localhost/hook', 'PRIVATE_ADDRESS'],
      ['https://169.254.169.254/latest/meta-data', 'PRIVATE_ADDRESS'],
      ['https://[::1]/hook', 'PRIVATE_ADDRESS'],
      ['https://[::ffff:192.168.1.1]/hook', 'PRIVATE_ADDRESS'],
      ['https://[::127.0.0.1]/hook', 'PRIVATE_ADDRESS'],
      ['https://[::ffff:0:7f00:1]/hook', 'PRIVATE_ADDRESS'],
      ['https://[64:ff9b:1::a9fe:a9fe]/hook', 'PRIVATE_ADDRESS'],
      ['https://[2002:a9fe:a9fe::]/hook', 'PRIVATE_ADDRESS'],
      ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', 'PRIVATE_ADDRESS'],
      ['https://user:secret@hooks.example.com/a', 'CREDENTIALS_IN_URL'],
    ];
    for (const [url, reason] of refusals) {
      const response = await app.request('/api/webhooks', { method: 'POST', token: key, json: body(url) });
      expect([response.status, response.body.errorCode, response.body.details?.reason], url).toEqual([
        400,
        'WEBHOOK_URL_REFUSED',
        reason,
      ]);
    }
    expect(await subscriptionRows(app, companyId)).toEqual([]);
    const publicAddress = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('https://93.184.215.14/hook'),
    });
    expect(publicAddress.status, publicAddress.text).toBe(201);
  });
});
