import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUrl, totpAt, totpStep } from './totp.js';

const SHA1_KEY = Buffer.from('12345678901234567890');
const SHA256_KEY = Buffer.from('12345678901234567890123456789012');
const SHA512_KEY = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234');

describe('HOTP (RFC 4226 appendix D)', () => {
  it.each([
    [0, '755224'],
    [1, '287082'],
    [2, '359152'],
    [3, '969429'],
    [4, '338314'],
    [5, '254676'],
    [6, '287922'],
    [7, '162583'],
    [8, '399871'],
    [9, '520489'],
  ])('counter %i gives %s', (counter, code) => {
    expect(hotp(SHA1_KEY, counter)).toBe(code);
  });
});

describe('TOTP (RFC 6238 appendix B, 8 digits)', () => {
  it.each([
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ])('at %i s: SHA1 %s, SHA256 %s, SHA512 %s', (seconds, sha1, sha256, sha512) => {
    const at = seconds * 1000;
    expect(totpAt(SHA1_KEY, at, { digits: 8, algorithm: 'sha1' })).toBe(sha1);
    expect(totpAt(SHA256_KEY, at, { digits: 8, algorithm: 'sha256' })).toBe(sha256);
    expect(totpAt(SHA512_KEY, at, { digits: 8, algorithm: 'sha512' })).toBe(sha512);
  });
});

describe('verifying a presented code', () => {
  const now = 1_700_000_015_000;
  const step = totpStep(now);
  const code = (offset: number) => hotp(SHA1_KEY, step + offset);

  it('accepts the current step and one step either side, and names the step it matched', () => {
    expect(matchTotp(SHA1_KEY, code(0), now)).toBe(step);
    expect(matchTotp(SHA1_KEY, code(-1), now)).toBe(step - 1);
    expect(matchTotp(SHA1_KEY, code(1), now)).toBe(step + 1);
  });

  it('refuses codes two steps away, wrong codes and text that is not six digits', () => {
    expect(matchTotp(SHA1_KEY, code(-2), now)).toBeNull();
    expect(matchTotp(SHA1_KEY, code(2), now)).toBeNull();
    expect(matchTotp(SHA1_KEY, String((Number(code(0)) + 1) % 1_000_000).padStart(6, '0'), now)).toBeNull();
    expect(matchTotp(SHA1_KEY, '12345', now)).toBeNull();
    expect(matchTotp(SHA1_KEY, ` ${code(0)}`, now)).toBeNull();
  });

  it('refuses a replay: a step at or before the last accepted one never matches again', () => {
    expect(matchTotp(SHA1_KEY, code(0), now, step)).toBeNull();
    expect(matchTotp(SHA1_KEY, code(-1), now, step)).toBeNull();
    expect(matchTotp(SHA1_KEY, code(1), now, step)).toBe(step + 1);
  });
});

describe('secrets and enrolment URLs', () => {
  it('encodes and decodes base32 as RFC 4648 does', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI')?.toString()).toBe('foobar');
    expect(base32Decode('mzxw 6ytb oi======')?.toString()).toBe('foobar');
    expect(base32Decode('MZXW1')).toBeNull();
  });

  it('produces the codes an authenticator app computes from the otpauth URL', () => {
    const secret = base32Encode(SHA1_KEY);
    const url = otpauthUrl({ issuer: 'Bus Booking Admin', accountName: 'ops@example.test', secret });
    const app = OTPAuth.URI.parse(url) as OTPAuth.TOTP;
    expect(app.issuer).toBe('Bus Booking Admin');
    expect(app.label).toBe('ops@example.test');
    const at = 1_800_000_000_000;
    expect(app.generate({ timestamp: at })).toBe(totpAt(SHA1_KEY, at));
  });
});
