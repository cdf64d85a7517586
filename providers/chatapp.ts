/**
 * Client of the chat bot API (method chatapp). The bot only carries a message; the code in it
 * is generated and kept (hashed) by this service. Protocol, in the manner of common bot APIs:
 *
 *   POST {base}/bot{token}/sendMessage  {chat_id, text}
 *     200 {ok: true, result: {message_id}}
 *     4xx/5xx {ok: false, error_code, description}   (403: the traveller blocked the bot)
 *
 * The bot token is part of the path, so URLs are never logged or returned; a failure carries
 * only a short detail for the log. Redirects are not followed: a 3xx would have the POST, the
 * chat and the code in its text, repeated wherever its Location points, so it is ChatappUnavailable
 * (the code then goes by SMS), its body unread.
 */

export interface ChatappBot {
  sendMessage(chatId: string, text: string): Promise<void>;
}

export class ChatappUnavailable extends Error {
  constructor(readonly detail: string) {
    super('Chat bot unavailable');
    this.name = 'ChatappUnavailable';
  }
}

export interface ChatappOptions {
  baseUrl: string;
  botToken: string;
  timeoutMs: number;
}

export class HttpChatappBot implements ChatappBot {
  constructor(private readonly options: ChatappOptions) {}

  async sendMessage(chatId: string, text: string): Promise<void> {
    const base = this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`;
    let response: Response;
    try {
      response = await fetch(new URL(`bot${encodeURIComponent(this.options.botToken)}/sendMessage`, base), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw new ChatappUnavailable(`request failed: ${(error as Error).name}`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new ChatappUnavailable(`sendMessage answered a redirect (${response.status}), not followed`);
    }
    const body = (await response.json().catch(() => null)) as { ok?: unknown; error_code?: unknown } | null;
    if (!response.ok || body?.ok !== true) {
      const code = typeof body?.error_code === 'number' ? body.error_code : response.status;
      throw new ChatappUnavailable(`sendMessage answered ${code}`);
    }
  }
}
