import { afterAll, describe, expect, it } from 'vitest';
import { arabicDuration, englishDuration } from '../../../domain/account-email.js';
import { startChatappFake } from '../../support/fakes/chatapp.js';
import { startSmsVerifyFake } from '../../support/fakes/sms-verify.js';
import { useTestApp } from '../../support/harness.js';

/**
 * The chat bot message carrying a sign-in code states how long the code is valid. README: "Local
 * codes (chat bot, pre-launch) ... live 5 minutes" by default (OTP_LOCAL_CODE_TTL_SECONDS, 30-3600 s).
 * The message must state the real validity (never a longer one) in correct English and Arabic, as
 * the e-mails do (domain/account-email.ts englishDuration / arabicDuration).
 */

const sms = await startSmsVerifyFake();
const bot = await startChatappFake();
afterAll(async () => {
  await sms.close();
  await bot.close();
});

let counter = 0;
const pid = process.pid % 1000;
const newPhone = () => `+96395${String(pid).padStart(3, '0')}${String(++counter).padStart(4, '0')}`;

function mode(ttlSeconds: number) {
  return {
    OTP_SEND_PER_IP_PER_HOUR: 0,
    OTP_SEND_PER_PHONE_PER_HOUR: 0,
    OTP_VERIFY_PER_IP_PER_HOUR: 0,
    OTP_PRELAUNCH: false,
    SITE_MODE: 'live' as const,
    SMS_VERIFY_URL: sms.url,
    SMS_VERIFY_API_KEY: sms.apiKey,
    CHATAPP_API_URL: bot.url,
    CHATAPP_BOT_TOKEN: bot.botToken,
    OTP_PROVIDER_TIMEOUT_MS: 2000,
    OTP_LOCAL_CODE_TTL_SECONDS: ttlSeconds,
  };
}

for (const ttl of [90, 900]) {
  describe(`chat bot code message with OTP_LOCAL_CODE_TTL_SECONDS=${ttl}`, () => {
    const app = useTestApp(mode(ttl));

    it('states the real validity of the code, in English and in Arabic', async () => {
      const phone = newPhone();
      const chatId = String(760_000_000 + counter);
      await app.db.query('insert into chatapp_links (phone, chat_id) values ($1, $2)', [phone, chatId]);
      const response = await app.request('/api/auth/customer/send-otp', {
        method: 'POST',
        json: { phone, method: 'chatapp' },
      });
      expect(response.body.actualChannel).toBe('chatapp');
      const text = bot.messages.filter((message) => message.chatId === chatId).at(-1)!.text;
      expect(text).toContain(`Valid for ${englishDuration(ttl)}`);
      expect(text).toContain(`صالح لمدة ${arabicDuration(ttl)}`);
    });
  });
}
