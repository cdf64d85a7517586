import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';

/** Production never starts on a development convenience (issue 18). */

const signingKey = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** A production environment that starts: a real token secret, a signing key, pre-launch phone sign-in. */
const production = {
  NODE_ENV: 'production',
  ACCESS_TOKEN_SECRET: 'a-production-secret-that-is-long-enough-000',
  SIGNING_PRIVATE_KEY_PEM: signingKey,
  OTP_PRELAUNCH: 'true',
  PUBLIC_ORIGIN: 'https://bus.example',
  MAIL_FROM: 'Bus Booking <no-reply@bus.example>',
};

describe('production start-up', () => {
  it('starts with its secrets from the environment, the payment webhook disabled and no proxy trusted', () => {
    const config = loadConfig(production);
    expect(config.PAYMENT_WEBHOOK_MODE).toBe('disabled');
    expect(config.COOKIE_SECURE).toBe(true);
    expect(config.TRUSTED_PROXY_HOPS).toBe(0);
    expect(loadConfig({ NODE_ENV: 'development' }).PAYMENT_WEBHOOK_MODE).toBe('development');
  });

  it.each([
    ['the development token secret', { ACCESS_TOKEN_SECRET: undefined }, /ACCESS_TOKEN_SECRET/],
    ['no boarding-credential signing key', { SIGNING_PRIVATE_KEY_PEM: undefined }, /SIGNING_PRIVATE_KEY_PEM/],
    ['cookies without the Secure flag', { COOKIE_SECURE: 'false' }, /COOKIE_SECURE/],
    ['the development payment webhook', { PAYMENT_WEBHOOK_MODE: 'development' }, /PAYMENT_WEBHOOK_MODE/],
    ['webhooks to local receivers', { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' }, /WEBHOOK_ALLOW_LOCAL_TARGETS/],
    ['e-mail links to the development origin', { PUBLIC_ORIGIN: undefined }, /PUBLIC_ORIGIN/],
    ['e-mail links over plain http', { PUBLIC_ORIGIN: 'http://bus.example' }, /PUBLIC_ORIGIN/],
    [
      'e-mail from the development sender on .localhost',
      { MAIL_FROM: undefined },
      /MAIL_FROM: production sends/,
    ],
    [
      'e-mail from a .localhost sender',
      { MAIL_FROM: 'Bus <no-reply@mail.bus.LOCALHOST>' },
      /MAIL_FROM: production/,
    ],
  ])('refuses %s', (_what, change, problem) => {
    expect(() => loadConfig({ ...production, ...change })).toThrow(problem);
    expect(() => loadConfig({ ...production, ...change, NODE_ENV: 'development' })).not.toThrow();
  });

  it('names every problem at once', () => {
    expect(() =>
      loadConfig({ NODE_ENV: 'production', OTP_PRELAUNCH: 'true', COOKIE_SECURE: 'false' }),
    ).toThrow(/ACCESS_TOKEN_SECRET[\s\S]*SIGNING_PRIVATE_KEY_PEM[\s\S]*COOKIE_SECURE/);
  });
});
