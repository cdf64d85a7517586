import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';

/**
 * config/index.ts: "a bad value stops the process at start-up with a message naming the setting".
 * These values used to start the service and misbehave later (review 297).
 */
const pemOf = (key: ReturnType<typeof generateKeyPairSync>['privateKey']) =>
  key.export({ type: 'pkcs8', format: 'pem' }).toString();

const ORIGIN_SETTINGS = ['PUBLIC_ORIGIN', 'SITE_ORIGIN', 'PWA_ORIGIN', 'DEV_PWA_ORIGIN'] as const;

describe('origin settings (PUBLIC_ORIGIN, SITE_ORIGIN, PWA_ORIGIN, DEV_PWA_ORIGIN)', () => {
  it.each(ORIGIN_SETTINGS)('%s: refuses anything but an http(s) scheme and host at start-up', (setting) => {
    for (const value of [
      'bus.example.sy:443', // scheme forgotten: its origin is the opaque "null"
      'javascript:alert(1)',
      'mailto:ops@bus.example.sy',
      'ftp://bus.example.sy',
      'https://bus.example.sy/base',
      'https://bus.example.sy/?lang=ar',
      'https://bus.example.sy/#top',
      'https://user:secret@bus.example.sy',
    ]) {
      expect(() => loadConfig({ [setting]: value }), value).toThrow(
        new RegExp(`^Invalid configuration:\\n  ${setting}: must be an http or https origin`),
      );
    }
  });

  it.each(ORIGIN_SETTINGS)('%s: accepts an origin, with or without its trailing slash', (setting) => {
    for (const value of ['https://bus.example.sy', 'https://bus.example.sy/', 'http://localhost:5173']) {
      expect(loadConfig({ [setting]: value })[setting]).toBe(value);
    }
  });
});

describe('MAIL_FROM', () => {
  // nodemailer sent a value without an address as no From header at all and MAIL FROM:<> (review 425).
  it('refuses at start-up anything but one sender address', () => {
    for (const value of [
      'Bus Booking',
      'Bus Booking <>',
      'Bus Booking <no-reply>',
      'no-reply@bus',
      'a@bus.example, b@bus.example',
      'Team: a@bus.example;',
    ]) {
      expect(() => loadConfig({ MAIL_FROM: value }), value).toThrow(
        /^Invalid configuration:\n {2}MAIL_FROM: must be one sender address/,
      );
    }
  });

  it('accepts an address, with or without a display name, as written', () => {
    for (const value of [
      'no-reply@bus.example',
      'Bus Booking <no-reply@bus.example>',
      '"Bus Booking, Damascus" <no-reply@bus.example.xn--ogbpf8fl>',
    ]) {
      expect(loadConfig({ MAIL_FROM: value }).MAIL_FROM).toBe(value);
    }
    expect(loadConfig({}).MAIL_FROM).toBe('Bus Booking <no-reply@bus-booking.localhost>');
  });
});

describe('SIGNING_PRIVATE_KEY_PEM', () => {
  const ed25519 = pemOf(generateKeyPairSync('ed25519').privateKey);

  it('refuses at start-up a key that cannot sign boarding credentials, without echoing it', () => {
    const rsa = pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const ec = pemOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    const garbled = '-----BEGIN PRIVATE KEY-----\\nnot a key\\n-----END PRIVATE KEY-----';
    const publicHalf = generateKeyPairSync('ed25519')
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    for (const [what, value] of Object.entries({ rsa, ec, garbled, publicHalf })) {
      let message = '';
      try {
        loadConfig({ SIGNING_PRIVATE_KEY_PEM: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, what).toMatch(/SIGNING_PRIVATE_KEY_PEM: must be an Ed25519 PKCS#8 PEM private key/);
      expect(message, what).not.toContain('-----');
      expect(message, what).not.toContain('not a key');
    }
  });

  it('accepts an Ed25519 PKCS#8 key as it is, and with literal \\n for its newlines', () => {
    expect(loadConfig({ SIGNING_PRIVATE_KEY_PEM: ed25519 }).SIGNING_PRIVATE_KEY_PEM).toBe(ed25519);
    expect(
      loadConfig({ SIGNING_PRIVATE_KEY_PEM: ed25519.replaceAll('\n', '\\n') }).SIGNING_PRIVATE_KEY_PEM,
    ).toBe(ed25519);
  });
});

describe('a blank setting', () => {
  it.each([
    'SEARCH_RATE_LIMIT_PER_MINUTE',
    'OTP_SEND_PER_PHONE_PER_HOUR',
    'STAFF_LOGIN_MAX_PER_IP',
    'TRANSFER_MIN_SAME_STOP_MINUTES',
    'CASH_SHIFT_MAX_HOURS',
  ] as const)(
    '%s: a value of spaces is unset (its default), never 0 (which turns a limit off)',
    (setting) => {
      const unset = loadConfig({})[setting];
      expect(unset).toBeGreaterThan(0);
      for (const blank of [' ', '   ', '\t', ' \n']) {
        expect(loadConfig({ [setting]: blank })[setting], JSON.stringify(blank)).toBe(unset);
      }
    },
  );

  it('keeps a value that is not blank exactly as written (secrets, PEM blocks)', () => {
    const secret = `  ${'s'.repeat(32)} `;
    expect(loadConfig({ ACCESS_TOKEN_SECRET: secret }).ACCESS_TOKEN_SECRET).toBe(secret);
    const ed25519 = pemOf(generateKeyPairSync('ed25519').privateKey);
    expect(ed25519.endsWith('\n')).toBe(true);
    expect(loadConfig({ SIGNING_PRIVATE_KEY_PEM: ed25519 }).SIGNING_PRIVATE_KEY_PEM).toBe(ed25519);
  });
});

describe('transfer minutes (TRANSFER_*)', () => {
  it.each([
    'TRANSFER_MAX_WAIT_MINUTES',
    'TRANSFER_MIN_SAME_STOP_MINUTES',
    'TRANSFER_MIN_SAME_CITY_MINUTES',
  ] as const)('%s: refuses more than two days (2880 minutes) at start-up', (setting) => {
    expect(() => loadConfig({ [setting]: '3000000000' })).toThrow(new RegExp(`${setting}:`));
    expect(() => loadConfig({ TRANSFER_MAX_WAIT_MINUTES: '2880', [setting]: '2881' })).toThrow(
      new RegExp(`${setting}:`),
    );
    expect(loadConfig({ TRANSFER_MAX_WAIT_MINUTES: '2880', [setting]: '2880' })[setting]).toBe(2880);
  });

  it('refuses a minimum change time longer than the longest wait (no connection would ever be offered)', () => {
    expect(() => loadConfig({ TRANSFER_MIN_SAME_CITY_MINUTES: '400' })).toThrow(
      /TRANSFER_MIN_SAME_CITY_MINUTES: 400 is more than TRANSFER_MAX_WAIT_MINUTES \(360\)/,
    );
    expect(() => loadConfig({ TRANSFER_MAX_WAIT_MINUTES: '10' })).toThrow(
      /TRANSFER_MIN_SAME_STOP_MINUTES: 20 is more than TRANSFER_MAX_WAIT_MINUTES \(10\)[\s\S]*TRANSFER_MIN_SAME_CITY_MINUTES: 60 is more/,
    );
    const equal = loadConfig({ TRANSFER_MIN_SAME_CITY_MINUTES: '360', TRANSFER_MAX_WAIT_MINUTES: '360' });
    expect(equal.TRANSFER_MIN_SAME_CITY_MINUTES).toBe(360);
  });
});
