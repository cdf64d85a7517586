import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../../config/index.js';

/**
 * A local identity provider for tests: an HTTP server publishing a JSON Web Key Set of a key
 * pair generated in the test, and a minter of ID tokens signed with it (or, to prove they are
 * refused, with a key the set does not publish). The app's real verifier (jose over the JWKS URL)
 * runs unchanged.
 */
export interface MintOptions {
  /** Claims to add or override (nonce, email, email_verified, name, sub...). */
  claims?: JWTPayload;
  /** Leave claims out of the token entirely (for example 'email_verified'). */
  omit?: string[];
  audience?: string;
  issuer?: string;
  /** Expiry relative to now, in seconds (negative: already expired). */
  expiresInSeconds?: number;
  /**
   * published  the key the JWKS publishes (a valid signature)
   * foreign    another key under an unpublished key id
   * forged     another key claiming the published key id (the signature does not verify)
   */
  signWith?: 'published' | 'foreign' | 'forged';
  /**
   * The key id the token names: a key published under it with `publishKey` (a rotation) signs it;
   * otherwise the key signWith says signs (`foreign`: a key under a key id the provider never published).
   */
  keyId?: string;
}

export interface FakeIdp {
  issuer: string;
  webClientId: string;
  mobileClientId: string;
  /** A signed ID token; by default for the web client, a fresh subject, a verified e-mail. */
  mint(options?: MintOptions): Promise<string>;
  /** While true, the key set answers 503 (the provider is down). */
  unavailable: boolean;
  /** Publishes one more signing key under `keyId` (a rotation); `mint({ keyId })` signs with it. */
  publishKey(keyId: string): Promise<void>;
  /** How many times the key set was asked for (answered or not). */
  keySetFetches: number;
}

const KEY_ID = 'test-signing-key';

/**
 * Starts the provider before the app of the same describe block: call it first and pass the
 * returned `config` (extra overrides included) to useTestApp; its IDP_* values are filled in once
 * the server listens.
 */
export function useFakeIdp(overrides: Partial<Config> = {}): { idp: FakeIdp; config: Partial<Config> } {
  const config: Partial<Config> = { ...overrides };
  const idp = {
    webClientId: 'test-web-client',
    mobileClientId: 'test-mobile-client',
    unavailable: false,
    keySetFetches: 0,
  } as FakeIdp;
  let server: Server | undefined;

  beforeAll(async () => {
    const published = await generateKeyPair('RS256', { extractable: true });
    const other = await generateKeyPair('RS256');
    const jwkOf = async (publicKey: CryptoKey, kid: string) => ({
      ...(await exportJWK(publicKey)),
      kid,
      alg: 'RS256',
      use: 'sig',
    });
    const keySet = [await jwkOf(published.publicKey, KEY_ID)];
    const rotated = new Map<string, CryptoKey>();
    idp.publishKey = async (keyId) => {
      const pair = await generateKeyPair('RS256', { extractable: true });
      keySet.push(await jwkOf(pair.publicKey, keyId));
      rotated.set(keyId, pair.privateKey);
    };
    server = createServer((request, response) => {
      if (request.url !== '/.well-known/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      idp.keySetFetches++;
      if (idp.unavailable) {
        response.writeHead(503).end();
      } else {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: keySet }));
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    idp.issuer = origin;
    idp.mint = (options = {}) =>
      mint(idp, options, { published: published.privateKey, other: other.privateKey, rotated });
    Object.assign(config, {
      IDP_ISSUER: origin,
      IDP_JWKS_URL: `${origin}/.well-known/jwks.json`,
      IDP_WEB_CLIENT_ID: idp.webClientId,
      IDP_MOBILE_CLIENT_ID: idp.mobileClientId,
    });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return { idp, config };
}

async function mint(
  idp: FakeIdp,
  options: MintOptions,
  keys: { published: CryptoKey; other: CryptoKey; rotated: ReadonlyMap<string, CryptoKey> },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const subject = randomUUID();
  const claims: JWTPayload = {
    email: `traveller-${subject}@example.test`,
    email_verified: true,
    name: 'Layla Haddad',
    ...options.claims,
  };
  for (const name of options.omit ?? []) delete claims[name];
  const signWith = options.signWith ?? 'published';
  const expiresIn = options.expiresInSeconds ?? 600;
  return new SignJWT(claims)
    .setProtectedHeader({
      alg: 'RS256',
      typ: 'JWT',
      kid: options.keyId ?? (signWith === 'foreign' ? 'unpublished-key' : KEY_ID),
    })
    .setSubject(typeof options.claims?.sub === 'string' ? options.claims.sub : subject)
    .setIssuer(options.issuer ?? idp.issuer)
    .setAudience(options.audience ?? idp.webClientId)
    .setIssuedAt(Math.min(now, now + expiresIn - 60))
    .setExpirationTime(now + expiresIn)
    .sign(keys.rotated.get(options.keyId ?? '') ?? (signWith === 'published' ? keys.published : keys.other));
}
