import { Refusal } from './refusal.js';

/**
 * Rules of traveller e-mail verification and password recovery that do not touch the outside
 * world: what a link looks like, what the message says, what a password must be.
 */

export type EmailTokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD';

/** Length rules only (no composition rules): long passphrases beat forced symbols. */
export const PASSWORD_MIN_LENGTH = 10;
/** Bounded so one request cannot make the password hash work on megabytes. */
export const PASSWORD_MAX_LENGTH = 128;

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * The site's pages that open the links. The token travels in the URL fragment, which browsers
 * never send to a server or put in a Referer; the page reads it and calls the API.
 */
export function verificationLink(publicOrigin: string, token: string): string {
  return new URL(`/auth/verify-email#token=${encodeURIComponent(token)}`, publicOrigin).toString();
}

export function recoveryLink(publicOrigin: string, token: string): string {
  return new URL(
    `/auth/reset-password#type=recovery&token=${encodeURIComponent(token)}`,
    publicOrigin,
  ).toString();
}

/** "s***@example.com": enough for the reset page to say which account, not enough to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/**
 * Who asked for a verification link, as its message names them: the site (PUBLIC_ORIGIN's host) and
 * the last digits of the account's phone, so the owner of an address someone else typed can tell the
 * account is not theirs, without the message showing the whole number.
 */
export interface VerificationRequester {
  site: string;
  phone: string | null;
}

/** Digits of the phone a verification message shows: enough for its owner to know the number, not to dial it. */
export const PHONE_DIGITS_SHOWN = 3;

/** The last PHONE_DIGITS_SHOWN digits of a phone number, or null when it has no more digits than that. */
export function phoneEnding(phone: string | null): string | null {
  const digits = (phone ?? '').replace(/\D/g, '');
  return digits.length > PHONE_DIGITS_SHOWN ? digits.slice(-PHONE_DIGITS_SHOWN) : null;
}

function requesterLines(requester: VerificationRequester): { ar: string; en: string } {
  const ending = phoneEnding(requester.phone);
  if (ending === null) {
    return {
      ar: `طلب حساب على ${requester.site} إضافة هذا البريد الإلكتروني إليه.`,
      en: `An account on ${requester.site} asked to add this e-mail address to it.`,
    };
  }
  return {
    ar: `طلب الحساب المسجَّل برقم الهاتف المنتهي بـ ${ending} على ${requester.site} إضافة هذا البريد الإلكتروني إليه.`,
    en: `The account with the phone number ending in ${ending} on ${requester.site} asked to add this e-mail address to it.`,
  };
}

export function verificationEmail(
  link: string,
  validForSeconds: number,
  requester: VerificationRequester,
): ComposedEmail {
  const validity = { en: englishDuration(validForSeconds), ar: arabicDuration(validForSeconds) };
  const asked = requesterLines(requester);
  return compose({
    subject: 'تأكيد بريدك الإلكتروني | Confirm your e-mail address',
    arabic: [
      asked.ar,
      `لتأكيد بريدك الإلكتروني افتح الرابط التالي. الرابط صالح لمدة ${validity.ar} ولمرة واحدة.`,
    ],
    english: [
      asked.en,
      `Open the link below to confirm your e-mail address. It works once and for ${validity.en}.`,
    ],
    link,
    ignore: {
      ar: 'إذا لم تطلب ذلك فتجاهل هذه الرسالة، ولن يُضاف هذا البريد إلى ذلك الحساب.',
      en: 'If you did not ask for this, ignore this message; the address will not be added to that account.',
    },
  });
}

export function recoveryEmail(link: string, validForSeconds: number): ComposedEmail {
  const validity = { en: englishDuration(validForSeconds), ar: arabicDuration(validForSeconds) };
  return compose({
    subject: 'إعادة تعيين كلمة المرور | Reset your password',
    arabic: [
      `لتعيين كلمة مرور جديدة افتح الرابط التالي. الرابط صالح لمدة ${validity.ar} ولمرة واحدة.`,
      'سيتم تسجيل خروجك من جميع الأجهزة الأخرى.',
    ],
    english: [
      `Open the link below to choose a new password. It works once and for ${validity.en}.`,
      'You will be signed out on every other device.',
    ],
    link,
    ignore: {
      ar: 'إذا لم تطلب ذلك فتجاهل هذه الرسالة، ولن تتغير كلمة مرورك.',
      en: 'If you did not ask for this, ignore this message; your password stays as it is.',
    },
  });
}

interface Draft {
  subject: string;
  arabic: string[];
  english: string[];
  link: string;
  ignore: { ar: string; en: string };
}

function compose(draft: Draft): ComposedEmail {
  const text = [
    ...draft.arabic,
    draft.ignore.ar,
    '',
    ...draft.english,
    draft.ignore.en,
    '',
    draft.link,
    '',
  ].join('\n');
  const paragraphs = (lines: string[]) => lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  const href = escapeHtml(draft.link);
  const html =
    `<!doctype html><html><body>` +
    `<div dir="rtl" lang="ar">${paragraphs(draft.arabic)}</div>` +
    `<div dir="ltr" lang="en">${paragraphs(draft.english)}</div>` +
    `<p><a href="${href}">${href}</a></p>` +
    `<div dir="rtl" lang="ar">${paragraphs([draft.ignore.ar])}</div>` +
    `<div dir="ltr" lang="en">${paragraphs([draft.ignore.en])}</div>` +
    `</body></html>`;
  return { subject: draft.subject, text, html };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function unitOf(seconds: number): { count: number; unit: 'hour' | 'minute' | 'second' } {
  if (seconds % 3600 === 0) return { count: seconds / 3600, unit: 'hour' };
  if (seconds % 60 === 0) return { count: seconds / 60, unit: 'minute' };
  return { count: seconds, unit: 'second' };
}

export function englishDuration(seconds: number): string {
  const { count, unit } = unitOf(seconds);
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** Arabic counted nouns: singular, dual, plural for 3 to 10, singular again from 11. */
const ARABIC_UNITS = {
  hour: { one: 'ساعة واحدة', two: 'ساعتين', few: 'ساعات', many: 'ساعة' },
  minute: { one: 'دقيقة واحدة', two: 'دقيقتين', few: 'دقائق', many: 'دقيقة' },
  second: { one: 'ثانية واحدة', two: 'ثانيتين', few: 'ثوانٍ', many: 'ثانية' },
} as const;

export function arabicDuration(seconds: number): string {
  const { count, unit } = unitOf(seconds);
  const words = ARABIC_UNITS[unit];
  if (count === 1) return words.one;
  if (count === 2) return words.two;
  return `${count} ${count <= 10 ? words.few : words.many}`;
}

/**
 * The address a new verification link goes to: the account's own, while it is not verified yet.
 * Throws 409 EMAIL_NOT_SET or EMAIL_ALREADY_VERIFIED otherwise.
 */
export function addressToVerify(account: { email: string | null; emailVerified: boolean } | null): string {
  if (!account?.email) throw new Refusal(409, 'EMAIL_NOT_SET', 'The account has no e-mail address');
  if (account.emailVerified) {
    throw new Refusal(409, 'EMAIL_ALREADY_VERIFIED', 'The e-mail address is already verified');
  }
  return account.email;
}
