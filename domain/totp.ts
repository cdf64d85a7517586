import { createHmac } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP), as authenticator apps compute them:
 * HMAC-SHA1, 30-second steps, 6 digits. Verification accepts the step before and after the current
 * one (clock drift) and only a step later than the last one accepted, so a code cannot be replayed.
 */
export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted on either side of the current one. */
export const TOTP_WINDOW = 1;

export interface TotpOptions {
  digits?: number;
  algorithm?: TotpAlgorithm;
  periodSeconds?: number;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: the form authenticator apps take secrets in. */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let text = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) text += BASE32[(value << (5 - bits)) & 31];
  return text;
}

/** Decodes base32 (case, spaces and padding ignored); null when a character is not base32. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** RFC 4226: the code for one counter value. */
export function hotp(key: Uint8Array, counter: number, options: TotpOptions = {}): string {
  const digits = options.digits ?? TOTP_DIGITS;
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(options.algorithm ?? 'sha1', key)
    .update(message)
    .digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The TOTP step (counter) a moment falls in. */
export function totpStep(epochMs: number, periodSeconds = TOTP_PERIOD_SECONDS): number {
  return Math.floor(epochMs / 1000 / periodSeconds);
}

export function totpAt(key: Uint8Array, epochMs: number, options: TotpOptions = {}): string {
  return hotp(key, totpStep(epochMs, options.periodSeconds), options);
}

/**
 * The step a presented code matches within the window around `epochMs`, or null. A step at or
 * before `lastAcceptedStep` never matches: each code is good once.
 */
export function matchTotp(
  key: Uint8Array,
  code: string,
  epochMs: number,
  lastAcceptedStep: number | null = null,
  options: TotpOptions = {},
): number | null {
  const digits = options.digits ?? TOTP_DIGITS;
  if (!new RegExp(`^\\d{${digits}}$`).test(code)) return null;
  const current = totpStep(epochMs, options.periodSeconds);
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    if (lastAcceptedStep !== null && step <= lastAcceptedStep) continue;
    if (hotp(key, step, options) === code) return step;
  }
  return null;
}

/** The otpauth:// URL an authenticator app scans (Key Uri Format). */
export function otpauthUrl(input: { issuer: string; accountName: string; secret: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.accountName)}`;
  // Percent-encoding, not URLSearchParams: authenticator apps read "+" literally, not as a space.
  const query = Object.entries({
    secret: input.secret,
    issuer: input.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_SECONDS),
  })
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return `otpauth://totp/${label}?${query}`;
}
