import { describe, expect, it } from 'vitest';
import {
  addressToVerify,
  arabicDuration,
  englishDuration,
  maskEmail,
  recoveryEmail,
  recoveryLink,
  verificationLink,
} from './account-email.js';

describe('e-mail links and messages', () => {
  it('puts the token in the fragment of the site page, never in the path or query', () => {
    const link = new URL(recoveryLink('https://bus.example/', 'abc_-1'));
    expect(link.origin + link.pathname).toBe('https://bus.example/auth/reset-password');
    expect(link.search).toBe('');
    expect(link.hash).toBe('#type=recovery&token=abc_-1');
    expect(verificationLink('https://bus.example', 'xyz')).toBe(
      'https://bus.example/auth/verify-email#token=xyz',
    );
  });

  it('masks an address down to its first letter and domain', () => {
    expect(maskEmail('salma@example.com')).toBe('s***@example.com');
    expect(maskEmail('not-an-address')).toBe('***');
  });

  it('states the validity in both languages with the right counted forms', () => {
    expect(englishDuration(1800)).toBe('30 minutes');
    expect(englishDuration(86_400)).toBe('24 hours');
    expect(englishDuration(3600)).toBe('1 hour');
    expect(arabicDuration(1800)).toBe('30 دقيقة');
    expect(arabicDuration(5 * 60)).toBe('5 دقائق');
    expect(arabicDuration(7200)).toBe('ساعتين');
    expect(arabicDuration(86_400)).toBe('24 ساعة');
  });

  it('escapes the link in the HTML body and keeps it whole in the text body', () => {
    const message = recoveryEmail('https://bus.example/auth/reset-password#type=recovery&token=t', 1800);
    expect(message.text).toContain('https://bus.example/auth/reset-password#type=recovery&token=t');
    expect(message.html).toContain(
      'href="https://bus.example/auth/reset-password#type=recovery&#38;token=t"',
    );
    expect(message.text).toContain('30 minutes');
    expect(message.text).toContain('30 دقيقة');
  });
});

describe('resending a verification link', () => {
  it('goes to the account’s own address while it is not verified', () => {
    expect(addressToVerify({ email: 'a@example.com', emailVerified: false })).toBe('a@example.com');
  });

  it.each([
    ['no account', null, 'EMAIL_NOT_SET'],
    ['no address', { email: null, emailVerified: false }, 'EMAIL_NOT_SET'],
    ['a verified address', { email: 'a@example.com', emailVerified: true }, 'EMAIL_ALREADY_VERIFIED'],
  ])('is refused for %s', (_case, account, errorCode) => {
    expect(() => addressToVerify(account)).toThrow(expect.objectContaining({ status: 409, errorCode }));
  });
});
