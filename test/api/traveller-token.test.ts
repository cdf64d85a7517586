import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { decodeJwt, SignJWT, UnsecuredJWT, type JWTPayload } from 'jose';
import Koa from 'koa';
import { describe, expect, it, vi } from 'vitest';
import { customerAuthenticator } from '../../api/auth/customer-auth.js';
import { ACCESS_COOKIE, createTravellerTokens } from '../../api/auth/traveller-token.js';
import { Surface } from '../../api/http/route.js';
import { requestLifecycle } from '../../api/http/middleware.js';
import { createLogger } from '../../config/logger.js';
import { useTestApp } from '../support/harness.js';

const DEMO_COMPANY = '4f1c2a9e-8b7d-4e6f-a5c4-3b2a1d0e9f88';

/**
 * A customer route whose security is optionalTraveller: a guest and a valid credential get the
 * answer (200), a refused credential gets 401 and never the public data.
 */
const PROBE_PATH = '/api/routes/popular';

describe('traveller token layer', () => {
  const app = useTestApp();

  /**
   * A live session for crafted tokens to name (claim sid): without it every crafted token would be
   * refused for lacking a session, whatever flaw its case is about.
   */
  let live: Promise<{ userId: string; sessionId: string }> | undefined;
  const liveSession = () => (live ??= app.signIn().then(({ userId, sessionId }) => ({ userId, sessionId })));

  /** Signs a token the way a forger or a misconfigured issuer would; every field can be changed. */
  async function craft(
    options: {
      claims?: JWTPayload;
      secret?: string;
      issuer?: string | null;
      audience?: string | null;
      subject?: string | null;
      expiresAt?: number | null;
      algorithm?: 'HS256' | 'HS512';
      /** The session the token names; a live one by default, null for none. */
      sessionId?: string | null;
    } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    const session = await liveSession();
    const sessionId = options.sessionId === undefined ? session.sessionId : options.sessionId;
    let jwt = new SignJWT({
      ...(options.claims ?? { app_metadata: { inventory_scope: 'PRODUCTION' } }),
      ...(sessionId !== null ? { sid: sessionId } : {}),
    })
      .setProtectedHeader({ alg: options.algorithm ?? 'HS256', typ: 'JWT' })
      .setIssuedAt(now - 120);
    const subject = options.subject === undefined ? session.userId : options.subject;
    const issuer = options.issuer === undefined ? app.config.ACCESS_TOKEN_ISSUER : options.issuer;
    const audience = options.audience === undefined ? app.config.ACCESS_TOKEN_AUDIENCE : options.audience;
    const expiresAt = options.expiresAt === undefined ? now + 600 : options.expiresAt;
    if (subject !== null) jwt = jwt.setSubject(subject);
    if (issuer !== null) jwt = jwt.setIssuer(issuer);
    if (audience !== null) jwt = jwt.setAudience(audience);
    if (expiresAt !== null) jwt = jwt.setExpirationTime(expiresAt);
    return jwt.sign(new TextEncoder().encode(options.secret ?? app.config.ACCESS_TOKEN_SECRET));
  }

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const cookie = (token: string) => ({ Cookie: `${ACCESS_COOKIE}=${token}` });

  const expectInvalidCredential = (response: Awaited<ReturnType<typeof app.request>>) => {
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      success: false,
      errorCode: 'INVALID_CREDENTIAL',
      message: expect.any(String),
      requestId: response.headers.get('x-request-id'),
    });
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  };

  const refusedTokens: Array<[string, () => Promise<string>]> = [
    ['signed with another secret', () => craft({ secret: 'another-secret-that-is-long-enough-0000000' })],
    ['from another issuer', () => craft({ issuer: 'someone-else' })],
    ['for another audience', () => craft({ audience: 'bus-booking-dashboard' })],
    ['without an issuer', () => craft({ issuer: null })],
    ['expired', () => craft({ expiresAt: Math.floor(Date.now() / 1000) - 5 })],
    ['without an expiry', () => craft({ expiresAt: null })],
    ['without a subject', () => craft({ subject: null })],
    ['signed with HS512 instead of HS256', () => craft({ algorithm: 'HS512' })],
    [
      'unsigned (alg none)',
      async () =>
        new UnsecuredJWT({
          app_metadata: { inventory_scope: 'INTERNAL' },
          sid: (await liveSession()).sessionId,
        })
          .setSubject(randomUUID())
          .setIssuer(app.config.ACCESS_TOKEN_ISSUER)
          .setAudience(app.config.ACCESS_TOKEN_AUDIENCE)
          .setExpirationTime('10m')
          .encode(),
    ],
    [
      'with an unknown inventory_scope',
      () => craft({ claims: { app_metadata: { inventory_scope: 'EVERYTHING' } } }),
    ],
    [
      'with DEMO scope but no demo company',
      () => craft({ claims: { app_metadata: { inventory_scope: 'DEMO' } } }),
    ],
    ['whose app_metadata is a string', () => craft({ claims: { app_metadata: 'INTERNAL' } })],
    ['that is not a JWT at all', async () => 'not-a-jwt'],
    ['without a session id (sid)', () => craft({ sessionId: null })],
    ['naming a session that does not exist', () => craft({ sessionId: randomUUID() })],
    [
      'naming a session that was ended (logout)',
      async () => {
        const { sessionId } = await app.signIn();
        await app.db.query(
          `update traveller_sessions set revoked_at = now(), revoked_reason = 'LOGOUT' where id = $1`,
          [sessionId],
        );
        return craft({ sessionId });
      },
    ],
    [
      'naming a session that has expired',
      async () => {
        const { sessionId } = await app.signIn();
        await app.db.query(
          `update traveller_sessions set expires_at = now() - interval '1 second' where id = $1`,
          [sessionId],
        );
        return craft({ sessionId });
      },
    ],
    [
      'whose payload was edited after signing',
      async () => {
        const original = await app.tokenFor({ kind: 'PRODUCTION' });
        const [header, , signature] = original.split('.');
        const payload = Buffer.from(
          JSON.stringify({
            sid: decodeJwt(original).sid,
            sub: randomUUID(),
            iss: app.config.ACCESS_TOKEN_ISSUER,
            aud: app.config.ACCESS_TOKEN_AUDIENCE,
            exp: Math.floor(Date.now() / 1000) + 600,
            app_metadata: { inventory_scope: 'INTERNAL' },
          }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    ],
  ];

  describe('over HTTP on the customer surface', () => {
    it('lets a guest with no credential through', async () => {
      const response = await app.request(PROBE_PATH);
      expect(response.status).toBe(200);
    });

    it('lets a valid bearer token through', async () => {
      const response = await app.request(PROBE_PATH, { token: await app.tokenFor({ kind: 'INTERNAL' }) });
      expect(response.status).toBe(200);
    });

    it('lets the crafted baseline through, so each refused token below fails for its own flaw only', async () => {
      const token = await craft();
      expect((await app.request(PROBE_PATH, { headers: bearer(token) })).status).toBe(200);
      expect((await app.request(PROBE_PATH, { headers: cookie(token) })).status).toBe(200);
    });

    it('lets a valid bb_access cookie through', async () => {
      const response = await app.request(PROBE_PATH, {
        headers: cookie(await app.tokenFor({ kind: 'PRODUCTION' })),
      });
      expect(response.status).toBe(200);
    });

    it.each(refusedTokens)('refuses a bearer token %s with 401 INVALID_CREDENTIAL', async (_case, make) => {
      expectInvalidCredential(await app.request(PROBE_PATH, { headers: bearer(await make()) }));
    });

    it.each(refusedTokens)(
      'refuses a bb_access cookie %s with 401 INVALID_CREDENTIAL',
      async (_case, make) => {
        expectInvalidCredential(await app.request(PROBE_PATH, { headers: cookie(await make()) }));
      },
    );

    it.each([
      ['"Bearer" with no token', 'Bearer'],
      ['a Basic credential', 'Basic dXNlcjpwYXNz'],
      ['a bearer with two tokens', 'Bearer aaa bbb'],
      ['an unknown scheme', 'Token abcdef'],
    ])(
      'refuses a malformed Authorization header (%s) instead of treating the caller as a guest',
      async (_case, header) => {
        expectInvalidCredential(await app.request(PROBE_PATH, { headers: { Authorization: header } }));
      },
    );

    it('does not fall back to a valid cookie when the Authorization header is invalid', async () => {
      const valid = await app.tokenFor({ kind: 'PRODUCTION' });
      expectInvalidCredential(
        await app.request(PROBE_PATH, {
          headers: { ...cookie(valid), Authorization: 'Bearer expired.or.forged' },
        }),
      );
    });

    it('does not read credentials on public routes, whose answer is the same for everyone', async () => {
      const response = await app.request('/api/journey-locations', { headers: bearer('forged') });
      expect(response.status).toBe(200);
    });

    it('does not check credentials outside the customer surface or on the public OpenAPI document', async () => {
      for (const path of ['/healthz', '/api/openapi.json', '/docs']) {
        const response = await app.request(path, { headers: bearer('forged') });
        expect(response.status, path).toBe(200);
      }
    });
  });

  describe('a token verified before', () => {
    it('is refused once its session ends, though the same text was accepted a moment before', async () => {
      const { sessionId, token } = await app.signIn();
      expect((await app.request(PROBE_PATH, { headers: bearer(token) })).status).toBe(200);
      await app.db.query(
        `update traveller_sessions set revoked_at = now(), revoked_reason = 'LOGOUT' where id = $1`,
        [sessionId],
      );
      expectInvalidCredential(await app.request(PROBE_PATH, { headers: bearer(token) }));
    });

    it('is refused once it expires, and an edited copy of it is never accepted', async () => {
      const tokens = createTravellerTokens(app.config);
      const token = await craft({ expiresAt: Math.floor(Date.now() / 1000) + 60 });
      const identity = await tokens.verify(token);
      expect(await tokens.verify(token)).toEqual(identity);
      const [header, , signature] = token.split('.');
      const edited = Buffer.from(
        JSON.stringify({ ...decodeJwt(token), app_metadata: { inventory_scope: 'INTERNAL' } }),
      ).toString('base64url');
      await expect(tokens.verify(`${header}.${edited}.${signature}`)).rejects.toThrow('invalid token');
      expect(() => {
        (identity as { userId: string }).userId = randomUUID();
      }).toThrow(TypeError);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
      try {
        await expect(tokens.verify(token)).rejects.toThrow('invalid token');
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('scope resolution', () => {
    it('reads the inventory scope from app_metadata', async () => {
      const tokens = createTravellerTokens(app.config);
      const userId = randomUUID();
      const read = async (claims: JWTPayload) =>
        tokens.verify(await craft({ claims, subject: userId, sessionId: null }));
      await expect(read({})).resolves.toEqual({ userId, sessionId: null, scope: { kind: 'PRODUCTION' } });
      await expect(
        read({ app_metadata: { inventory_scope: 'INTERNAL' }, sid: 'session-1' }),
      ).resolves.toEqual({
        userId,
        sessionId: 'session-1',
        scope: { kind: 'INTERNAL' },
      });
      await expect(
        read({ app_metadata: { inventory_scope: 'DEMO', demo_company_id: DEMO_COMPANY } }),
      ).resolves.toMatchObject({
        scope: { kind: 'DEMO', companyId: DEMO_COMPANY },
      });
    });

    it('ignores user_metadata and top-level claims that ask for a wider scope', async () => {
      const tokens = createTravellerTokens(app.config);
      const claims = {
        user_metadata: { inventory_scope: 'INTERNAL' },
        inventory_scope: 'INTERNAL',
        app_metadata: { inventory_scope: 'PRODUCTION' },
      };
      await expect(tokens.verify(await craft({ claims }))).resolves.toMatchObject({
        scope: { kind: 'PRODUCTION' },
      });
      const { app_metadata: _server, ...withoutServerClaim } = claims;
      await expect(tokens.verify(await craft({ claims: withoutServerClaim }))).resolves.toMatchObject({
        scope: { kind: 'PRODUCTION' },
      });
    });

    it('round-trips what the server signs', async () => {
      const tokens = createTravellerTokens(app.config);
      const identity = {
        userId: randomUUID(),
        sessionId: randomUUID(),
        scope: { kind: 'DEMO' as const, companyId: DEMO_COMPANY },
      };
      const { token, expiresAt } = await tokens.sign(identity, 900);
      expect(expiresAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(890);
      await expect(tokens.verify(token)).resolves.toEqual(identity);
    });

    /** The customer authenticator on a minimal surface whose only route shows what it resolved. */
    it('puts the traveller and scope on the request state, from the bearer or the cookie', async () => {
      const koa = new Koa();
      koa.use(requestLifecycle(createLogger({ LOG_LEVEL: 'silent' }, 'test')));
      const surface = new Surface(
        '',
        customerAuthenticator({ db: app.db, tokens: createTravellerTokens(app.config) }),
      );
      surface.route({
        method: 'get',
        path: '/',
        operationId: 'probe',
        summary: 'probe',
        tags: ['test'],
        security: 'optionalTraveller',
        responses: { 200: { description: 'what the authenticator resolved' } },
        handler: async (ctx) => {
          ctx.body = { traveller: ctx.state.traveller, scope: ctx.state.scope };
        },
      });
      koa.use(surface.router.routes());
      const server = koa.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      try {
        const traveller = await app.signIn({ kind: 'INTERNAL' });
        const { userId, sessionId, token } = traveller;
        const guest = await (await fetch(url)).json();
        expect(guest).toEqual({ traveller: null, scope: { kind: 'PRODUCTION' } });
        const viaBearer = await (await fetch(url, { headers: bearer(token) })).json();
        expect(viaBearer).toEqual({
          traveller: { userId, sessionId, scope: { kind: 'INTERNAL' }, via: 'bearer' },
          scope: { kind: 'INTERNAL' },
        });
        const viaCookie = await (await fetch(url, { headers: cookie(token) })).json();
        expect(viaCookie).toMatchObject({
          traveller: { userId, via: 'cookie' },
          scope: { kind: 'INTERNAL' },
        });
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      }
    });
  });
});
