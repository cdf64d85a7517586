import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for a link, a refresh token or a session: 32 bytes, base64url. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Only hashes of secrets are stored; a leaked table row cannot be replayed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The secrets of a new browser session: the session token (HttpOnly cookie) and the CSRF secret
 * the page echoes on writes. Only their hashes are stored; `issued` hands out the plain values.
 */
export function newSessionSecrets() {
  const token = newSecret();
  const csrfToken = newSecret(24);
  return {
    hashes: { tokenHash: hashSecret(token), csrfTokenHash: hashSecret(csrfToken) },
    issued: <Expiry>(sessionId: string, expiresAt: Expiry) => ({ sessionId, token, csrfToken, expiresAt }),
  };
}
