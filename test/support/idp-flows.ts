import type { FakeIdp } from './fakes/jwks.js';
import type { SignedInTraveller, TestApp, TestResponse } from './harness.js';

/** The provider account a test signs in or links with: its subject and verified address. */
export interface IdpAccount {
  sub: string;
  email: string;
}

/** Signs in from the mobile app with an ID token the fake provider minted for `account`. */
export async function idpMobileSignIn(
  app: TestApp,
  idp: FakeIdp,
  account: IdpAccount,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return app.request('/api/auth/customer/idp/mobile', {
    method: 'POST',
    json: { idToken: await idp.mint({ audience: idp.mobileClientId, claims: { ...account } }) },
    headers,
  });
}

/**
 * Links `account` to the signed-in web traveller as the web page does: a linking flow (its nonce and
 * flow cookie), then the ID token the provider minted for that nonce.
 */
export async function idpLink(
  app: TestApp,
  idp: FakeIdp,
  traveller: SignedInTraveller,
  account: IdpAccount,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const started = await app.request('/api/auth/customer/idp/nonce?channel=link');
  const flow = started.body.data;
  const flowCookie = (started.headers.getSetCookie().find((c) => c.startsWith('bb_idp_')) ?? '').split(
    ';',
  )[0];
  const idToken = await idp.mint({ claims: { ...account, nonce: flow.nonce } });
  return app.request('/api/profile/security/identities/idp', {
    method: 'POST',
    json: { idToken, flowId: flow.flowId },
    headers: { ...traveller.writeHeaders, Cookie: `${traveller.cookie}; ${flowCookie}`, ...headers },
  });
}
