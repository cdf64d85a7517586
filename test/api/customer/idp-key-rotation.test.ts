import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JWKS_REFETCH_COOLDOWN_MS } from '../../../api/auth/idp-verify.js';
import { useFakeIdp, type FakeIdp, type MintOptions } from '../../support/fakes/jwks.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

const LIMITS = { COOKIE_SECURE: false, IDP_RATE_LIMIT_PER_IP: 100_000, IDP_RATE_LIMIT_PER_SUBJECT: 1000 };

/** Mobile sign-ins (no nonce, no origin), and the accounts an e-mail has. */
function signIns(app: TestApp, idp: FakeIdp) {
  const mobile = async (options: MintOptions = {}) => {
    const email = `rotation-${randomUUID().slice(0, 8)}@example.test`;
    const idToken = await idp.mint({ audience: idp.mobileClientId, ...options, claims: { email } });
    const response = await app.request('/api/auth/customer/idp/mobile', {
      method: 'POST',
      json: { idToken },
    });
    return { email, response };
  };
  const accounts = async (emails: string[]) =>
    (await app.db.query('select id from users where lower(email) = any($1)', [emails])).length;
  return { mobile, accounts };
}

describe('identity-provider sign-in while the provider rotates its keys', () => {
  const { idp, config } = useFakeIdp(LIMITS);
  const app = useTestApp(config);

  it('accepts tokens signed with a key the provider has just published: the key set is fetched again, once', async () => {
    const { mobile } = signIns(app, idp);
    expect((await mobile()).response.status).toBe(200);
    expect(idp.keySetFetches).toBe(1);

    // Right after that fetch, the provider publishes a new key and signs new tokens with it.
    await idp.publishKey('rotated-key');
    const rotated = await Promise.all([mobile({ keyId: 'rotated-key' }), mobile({ keyId: 'rotated-key' })]);
    expect({
      statuses: rotated.map(({ response }) => response.status),
      errorCodes: rotated.map(({ response }) => response.body?.errorCode),
      keySetFetches: idp.keySetFetches,
    }).toEqual({ statuses: [200, 200], errorCodes: [undefined, undefined], keySetFetches: 2 });
  });
});

describe('identity-provider sign-in with a key id the provider does not publish', () => {
  const { idp, config } = useFakeIdp(LIMITS);
  const app = useTestApp(config);

  it('refuses it (401) after fetching the key set again, at most once in a few seconds however many such tokens come', async () => {
    const { mobile, accounts } = signIns(app, idp);
    expect((await mobile()).response.status).toBe(200);
    expect(idp.keySetFetches).toBe(1);

    const refused = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      refused.push(await mobile({ signWith: 'foreign', keyId: `made-up-${randomUUID()}` }));
    }
    expect({
      answers: refused.map(({ response }) => [response.status, response.body?.errorCode]),
      keySetFetches: idp.keySetFetches,
      accounts: await accounts(refused.map(({ email }) => email)),
    }).toEqual({ answers: Array(3).fill([401, 'IDP_TOKEN_INVALID']), keySetFetches: 2, accounts: 0 });
  });
});

describe('identity-provider sign-in with a new key while the provider cannot be reached', () => {
  const { idp, config } = useFakeIdp(LIMITS);
  const app = useTestApp(config);

  it('answers 503 IDP_UNAVAILABLE (Retry-After), never 401, and accepts the key once the provider answers', async () => {
    const { mobile, accounts } = signIns(app, idp);
    expect((await mobile()).response.status).toBe(200);

    await idp.publishKey('rotated-key');
    idp.unavailable = true;
    const outage = await mobile({ keyId: 'rotated-key' });
    idp.unavailable = false;
    // Within the few seconds after that failed fetch, the answer is still the provider's outage.
    const soonAfter = await mobile({ keyId: 'rotated-key' });
    expect({
      answers: [outage, soonAfter].map(({ response }) => [
        response.status,
        response.body?.errorCode,
        response.headers.get('retry-after'),
      ]),
      keySetFetches: idp.keySetFetches,
      accounts: await accounts([outage.email, soonAfter.email]),
    }).toEqual({
      answers: Array(2).fill([503, 'IDP_UNAVAILABLE', '5']),
      keySetFetches: 2,
      accounts: 0,
    });

    await new Promise((resolve) => setTimeout(resolve, JWKS_REFETCH_COOLDOWN_MS));
    expect((await mobile({ keyId: 'rotated-key' })).response.status).toBe(200);
    expect(idp.keySetFetches).toBe(3);
  }, 20_000);
});
