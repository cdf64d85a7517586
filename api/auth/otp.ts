import { randomInt, randomUUID } from 'node:crypto';
import { ChatappUnavailable, HttpChatappBot } from '../../providers/chatapp.js';
import {
  HttpSmsVerification,
  SmsVerifyRefused,
  SmsVerifyUnavailable,
  type SmsCheckResult,
} from '../../providers/sms-verify.js';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { linkedChat, openChallenge, type OpenChallenge } from '../../db/queries/otp-challenges.js';
import {
  checkLocalCode,
  closeChallenge,
  closeProviderChallenge,
  openLocalChallenge,
  openProviderChallenge,
  spendChallenge,
  type SpendCode,
} from '../../db/writes/otp-challenges.js';
import type { Database } from '../../db/orm.js';
import { arabicDuration, englishDuration } from '../../domain/account-email.js';
import { isReservedDemoPhone, normalisePhone } from '../../domain/phone.js';
import { Refusal, tooManyRequests, unavailableFor } from '../http/errors.js';
import { hashSecret, sameSecret } from './secrets.js';

/**
 * One-time codes for traveller sign-in by phone.
 *
 *   sms       the verification provider generates, sends, keeps and attempt-limits the code; we
 *             keep a challenge row naming the provider's verification, never the code.
 *   chatapp   we generate the code, keep only its hash, and the chat bot carries it to the chat
 *             linked to the number. No bot token, no linked chat, or a bot failure: sent by SMS.
 *   whatsapp  legacy value (also what an omitted method means): sent by SMS; WhatsApp is never
 *             contacted.
 *   pre-launch (OTP_PRELAUNCH) no provider is contacted: the reserved demo numbers (+963900...)
 *             get a local code, any other number gets 503.
 *
 * Local codes: 6 digits, valid OTP_LOCAL_CODE_TTL_SECONDS (5 min), burnt after
 * OTP_LOCAL_MAX_ATTEMPTS (5) wrong entries. Sending a new code closes the phone's previous one.
 * A right code is used up only by the transaction of what it was entered for (the sign-in with its
 * session, the phone completion): a refusal or a failure there leaves it usable, as an
 * identity-provider nonce is (only a successful attempt consumes it). A wrong entry counts at once.
 * Raw provider errors and keys go to the server log only; the client gets a stable errorCode.
 */

export type OtpMethod = 'sms' | 'chatapp' | 'whatsapp';

/** How the code really travelled: `local` means no message was sent (pre-launch). */
export type OtpChannel = 'sms' | 'chatapp' | 'local';

export interface OtpDeps {
  config: Config;
  db: Database;
  logger: Logger;
}

export interface SentOtp {
  /** The phone number in E.164 form. */
  phone: string;
  actualChannel: OtpChannel;
  /** True when the method asked for is not the channel used. */
  fallbackToSms: boolean;
  /** The code when this server generated it; only development answers may show it. */
  localCode: string | null;
}

const CODE_DIGITS = 6;

/** What checking a code concluded; the provider's answers and ours share one vocabulary. */
type CheckOutcome = SmsCheckResult;

/** Our record of a provider verification lasts this long; the provider's own validity decides within it. */
const PROVIDER_CHALLENGE_SECONDS = 15 * 60;

const invalidPhone = () =>
  new Refusal(
    400,
    'INVALID_PHONE',
    'Enter the phone number in international form, for example +963944123456',
  );
const otpInvalid = () => new Refusal(400, 'OTP_INVALID', 'The code is not correct');
const otpExpired = () =>
  new Refusal(400, 'OTP_EXPIRED', 'The code has expired or was already used; request a new one');
const tooManyAttempts = () =>
  new Refusal(429, 'OTP_TOO_MANY_ATTEMPTS', 'Too many wrong codes; request a new one');

/**
 * The Retry-After of a provider's refusal (429) or failure (503): the wait the provider asked for,
 * kept within 1 s .. 1 h (a provider asking for a day is asked again in an hour), else a minute.
 */
export const OTP_RETRY_AFTER_SECONDS = { fallback: 60, min: 1, max: 3600 } as const;
const providerRetryAfter = (asked: number | undefined) =>
  asked === undefined
    ? OTP_RETRY_AFTER_SECONDS.fallback
    : Math.min(OTP_RETRY_AFTER_SECONDS.max, Math.max(OTP_RETRY_AFTER_SECONDS.min, asked));

const unavailable = (askedSeconds?: number) =>
  unavailableFor(
    'OTP_UNAVAILABLE',
    'Codes cannot be sent or checked right now; try again in a few minutes',
    providerRetryAfter(askedSeconds),
  );
const prelaunchRefusal = () =>
  new Refusal(
    503,
    'PRELAUNCH_PHONE_NOT_ALLOWED',
    'Sign-in opens at launch; until then only the reserved demo numbers can sign in',
  );

/** The E.164 form of `input`, or 400 INVALID_PHONE. */
export function requirePhone(input: string): string {
  const phone = normalisePhone(input);
  if (!phone) throw invalidPhone();
  return phone;
}

/**
 * A refusal of a send after which no message can have reached the phone: the SMS provider answered
 * that it sent nothing (it refused the number, failed, or limits our calls) and no chat message was
 * tried. A send that timed out, or whose answer was lost, may have gone out: its refusal is not this.
 */
export class OtpNotSent extends Refusal {
  constructor(refusal: Refusal) {
    super(refusal.status, refusal.code, refusal.message, refusal.details, refusal.extra);
  }
}

/**
 * Sends a sign-in code to `phone` by the requested method (or the channel it falls back to); a
 * refusal after which nothing was sent is an OtpNotSent.
 */
export async function sendOtp(
  deps: OtpDeps,
  request: { phone: string; method?: OtpMethod; chatappChatId?: string },
): Promise<SentOtp> {
  const phone = requirePhone(request.phone);
  // SPEC: an omitted method is the legacy whatsapp value, which is sent by SMS.
  const requested = request.method ?? 'whatsapp';
  if (deps.config.OTP_PRELAUNCH) return sendPrelaunchCode(deps, phone);
  let chatTried = false;
  if (requested === 'chatapp') {
    const chat = await sendByChatapp(deps, phone, request.chatappChatId);
    if (chat.code) return { phone, actualChannel: 'chatapp', fallbackToSms: false, localCode: chat.code };
    chatTried = chat.tried;
  }
  // A chat message whose sending failed may still have reached the chat: then the send counts.
  await sendBySms(deps, phone, (refusal) => (chatTried ? refusal : new OtpNotSent(refusal)));
  return { phone, actualChannel: 'sms', fallbackToSms: requested !== 'sms', localCode: null };
}

/** A right code: its number, and its spending for the transaction of what it was entered for. */
export interface CheckedOtp {
  /** The phone number in E.164 form. */
  phone: string;
  /**
   * Uses the code up inside that transaction (signInByPhone, completePhone), so it rolls back with
   * it; 400 OTP_EXPIRED there when a parallel attempt spent it first (or a new code replaced it).
   */
  spend: SpendCode;
}

/**
 * Checks a code against the challenge last sent to `phone`; a right one is not used up yet (see
 * CheckedOtp.spend). Whatever channel delivered the code decides how it is checked, so `method`
 * needs no agreement with the send (a chatapp request may have gone by SMS). Throws 400 OTP_INVALID,
 * 400 OTP_EXPIRED, 429 OTP_TOO_MANY_ATTEMPTS, 503 OTP_UNAVAILABLE (or 503 PRELAUNCH_PHONE_NOT_ALLOWED).
 */
export async function checkOtp(
  deps: OtpDeps,
  attempt: { phone: string; code: string; method?: OtpMethod },
): Promise<CheckedOtp> {
  const phone = requirePhone(attempt.phone);
  const prelaunch = deps.config.OTP_PRELAUNCH;
  if (prelaunch && !isReservedDemoPhone(phone)) throw prelaunchRefusal();
  const challenge = await openChallenge(deps.db, phone);
  // A provider challenge left from before pre-launch began cannot be checked: the provider is off.
  if (!challenge || challenge.expired || (prelaunch && !challenge.local)) throw otpExpired();
  const outcome = challenge.local
    ? await checkLocalCode(deps.db, challenge.id, (stored) =>
        sameSecret(stored, codeHash(challenge.id, attempt.code)),
      )
    : await checkProviderCode(deps, challenge.id, phone, attempt.code);
  if (outcome === 'wrong_code') throw otpInvalid();
  if (outcome === 'expired') throw otpExpired();
  if (outcome === 'too_many_attempts') throw tooManyAttempts();
  return { phone, spend: (client) => spendCode(client, challenge) };
}

/**
 * A local code spent, replaced, expired or burnt between its check and this transaction is refused.
 * The provider's approval stands by itself (the provider judged the code and has closed its
 * verification): its challenge is closed here if still open.
 */
async function spendCode(client: Parameters<SpendCode>[0], challenge: OpenChallenge): Promise<void> {
  const spent = await spendChallenge(client, challenge.id);
  if (!spent && challenge.local) throw otpExpired();
}

// ---------------------------------------------------------------------------------------------
// Sending

async function sendPrelaunchCode(deps: OtpDeps, phone: string): Promise<SentOtp> {
  if (!isReservedDemoPhone(phone)) throw prelaunchRefusal();
  const { code } = await newLocalChallenge(deps, phone, 'local');
  // Outside development the answer never shows the code; whoever runs a pre-launch demo reads it
  // from the server log. Reserved numbers belong to no real person.
  if (deps.config.NODE_ENV !== 'development')
    deps.logger.info({ phone, code }, 'pre-launch sign-in code for a reserved demo number');
  return { phone, actualChannel: 'local', fallbackToSms: false, localCode: code };
}

/**
 * Sends a local code through the chat bot: the code when sent, else null, and whether the bot was
 * tried (it failed) or cannot be used for this number.
 */
async function sendByChatapp(
  deps: OtpDeps,
  phone: string,
  namedChatId: string | undefined,
): Promise<{ code: string | null; tried: boolean }> {
  const unused = { code: null, tried: false };
  const botToken = deps.config.CHATAPP_BOT_TOKEN;
  if (!botToken) return unused;
  const chatId = await linkedChat(deps.db, phone);
  // A chat named by the client counts only when it is the one linked to this number: otherwise
  // anyone could have another person's sign-in code delivered to their own chat.
  if (!chatId || (namedChatId !== undefined && namedChatId !== chatId)) return unused;
  const challenge = await newLocalChallenge(deps, phone, 'chatapp');
  const bot = new HttpChatappBot({
    baseUrl: deps.config.CHATAPP_API_URL,
    botToken,
    timeoutMs: deps.config.OTP_PROVIDER_TIMEOUT_MS,
  });
  try {
    await bot.sendMessage(chatId, codeMessage(challenge.code, deps.config.OTP_LOCAL_CODE_TTL_SECONDS));
    return { code: challenge.code, tried: true };
  } catch (error) {
    if (!(error instanceof ChatappUnavailable)) throw error;
    deps.logger.warn({ detail: error.detail }, 'chat bot unavailable; sending the code by SMS');
    await closeChallenge(deps.db, challenge.id);
    return { code: null, tried: true };
  }
}

/** `notSent` marks a refusal after which the provider has sent nothing (OtpNotSent, if nothing else was). */
async function sendBySms(
  deps: OtpDeps,
  phone: string,
  notSent: (refusal: Refusal) => Refusal,
): Promise<void> {
  const provider = requireSmsProviderToSend(deps, notSent);
  let reference: string;
  try {
    ({ reference } = await provider.start(phone));
  } catch (error) {
    if (error instanceof SmsVerifyRefused) {
      if (error.reason === 'invalid_phone') throw notSent(invalidPhone());
      throw notSent(
        tooManyRequests(
          providerRetryAfter(error.retryAfterSeconds),
          'Too many codes were sent to this number; try again later',
        ),
      );
    }
    if (error instanceof SmsVerifyUnavailable) {
      deps.logger.warn({ detail: error.detail, sent: error.sent }, 'SMS verification provider unavailable');
      const refusal = unavailable(error.retryAfterSeconds);
      throw error.sent === 'no' ? notSent(refusal) : refusal;
    }
    throw error;
  }
  await openProviderChallenge(deps.db, { phone, reference, ttlSeconds: PROVIDER_CHALLENGE_SECONDS });
}

/** requireSmsProvider for a send: with none configured the provider sent nothing. */
function requireSmsProviderToSend(
  deps: OtpDeps,
  notSent: (refusal: Refusal) => Refusal,
): HttpSmsVerification {
  try {
    return requireSmsProvider(deps);
  } catch (error) {
    throw error instanceof Refusal ? notSent(error) : error;
  }
}

/** The configured provider, or 503 OTP_UNAVAILABLE (the missing setting goes to the log). */
function requireSmsProvider(deps: OtpDeps): HttpSmsVerification {
  const config = deps.config;
  if (!config.SMS_VERIFY_URL || !config.SMS_VERIFY_API_KEY) {
    deps.logger.error('no SMS verification provider is configured (SMS_VERIFY_URL)');
    throw unavailable();
  }
  return new HttpSmsVerification({
    baseUrl: config.SMS_VERIFY_URL,
    apiKey: config.SMS_VERIFY_API_KEY,
    timeoutMs: config.OTP_PROVIDER_TIMEOUT_MS,
  });
}

/** The chat message: the code and its real lifetime (never a longer one), worded as the e-mails word theirs. */
function codeMessage(code: string, ttlSeconds: number): string {
  return (
    `رمز الدخول: ${code}\nصالح لمدة ${arabicDuration(ttlSeconds)}. لا تشاركه مع أحد.\n\n` +
    `Your sign-in code: ${code}\nValid for ${englishDuration(ttlSeconds)}. Never share it.`
  );
}

// ---------------------------------------------------------------------------------------------
// Challenges

/** Codes are compared as salted hashes: a leaked row reveals nothing usable within its minutes. */
function codeHash(challengeId: string, code: string): string {
  return hashSecret(`${challengeId}:${code}`);
}

async function newLocalChallenge(
  deps: OtpDeps,
  phone: string,
  channel: 'chatapp' | 'local',
): Promise<{ id: string; code: string }> {
  const id = randomUUID();
  const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
  await openLocalChallenge(deps.db, {
    id,
    phone,
    channel,
    codeHash: codeHash(id, code),
    maxAttempts: deps.config.OTP_LOCAL_MAX_ATTEMPTS,
    ttlSeconds: deps.config.OTP_LOCAL_CODE_TTL_SECONDS,
  });
  return { id, code };
}

/**
 * Asks the provider; a verification it has closed as expired or burnt is closed here too. An
 * approved one is closed by the transaction that spends it (spendCode).
 */
async function checkProviderCode(
  deps: OtpDeps,
  challengeId: string,
  phone: string,
  code: string,
): Promise<CheckOutcome> {
  const provider = requireSmsProvider(deps);
  let result: CheckOutcome;
  try {
    result = await provider.check(phone, code);
  } catch (error) {
    if (!(error instanceof SmsVerifyUnavailable)) throw error;
    deps.logger.warn({ detail: error.detail }, 'SMS verification provider unavailable');
    throw unavailable(error.retryAfterSeconds);
  }
  if (result === 'expired' || result === 'too_many_attempts')
    await closeProviderChallenge(deps.db, challengeId);
  return result;
}
