import { afterAll, describe, expect, it } from 'vitest';
import { ChatappUnavailable, HttpChatappBot } from '../../providers/chatapp.js';
import { startChatappFake } from '../support/fakes/chatapp.js';
import { startRedirectTarget } from '../support/fakes/redirect-target.js';

/**
 * README (Travellers, OTP): the chat bot's redirects are not followed. A 307/308 would have fetch
 * repeat the POST, the chat and the sign-in code in its text, at whatever its Location names.
 */
const bot = await startChatappFake();
const elsewhere = await startRedirectTarget();
afterAll(async () => {
  await bot.close();
  await elsewhere.close();
});

describe('the chat bot API answering with a redirect', () => {
  const client = new HttpChatappBot({ baseUrl: bot.url, botToken: bot.botToken, timeoutMs: 2000 });

  it.each([307, 308] as const)(
    'is not followed (%d): the bot is unavailable and the other server hears nothing',
    async (status) => {
      elsewhere.requests.length = 0;
      bot.redirectNext(`${elsewhere.url}/collect`, status);
      const failure = await client
        .sendMessage('700123456', 'Your sign-in code: 123456')
        .catch((error: unknown) => error);
      expect(elsewhere.requests).toEqual([]);
      expect(failure).toBeInstanceOf(ChatappUnavailable);
      expect((failure as ChatappUnavailable).detail).not.toContain(elsewhere.url);
      expect((failure as ChatappUnavailable).detail).not.toContain(bot.botToken);
      expect(bot.messages).toEqual([]);
    },
  );

  it('still delivers when the bot answers normally', async () => {
    await client.sendMessage('700123457', 'Your sign-in code: 654321');
    expect(bot.lastCode('700123457')).toBe('654321');
  });
});
