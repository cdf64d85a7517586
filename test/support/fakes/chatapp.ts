import { randomUUID } from 'node:crypto';
import { sendJson, startFakeServer, type ReceivedRequest } from './provider-server.js';

/**
 * A local chat bot API speaking the protocol of providers/chatapp.ts
 * (POST /bot<token>/sendMessage). It records each message as the traveller's chat would show it.
 */
export type ChatappFailure = 'error' | 'blocked' | 'hang';

export interface ChatappFake {
  url: string;
  botToken: string;
  messages: { chatId: string; text: string }[];
  requests: ReceivedRequest[];
  /** The 6-digit code in the last message to `chatId`. */
  lastCode(chatId: string): string | undefined;
  failNext(failure: ChatappFailure, times?: number): void;
  /** The next request is answered `status` (307 or 308: repeat the POST there) with this Location. */
  redirectNext(location: string, status?: 307 | 308): void;
  close(): Promise<void>;
}

export async function startChatappFake(): Promise<ChatappFake> {
  const botToken = `${Math.floor(Math.random() * 1e9)}:${randomUUID().replaceAll('-', '')}`;
  const messages: { chatId: string; text: string }[] = [];
  const failures: ChatappFailure[] = [];
  const redirects: { location: string; status: number }[] = [];
  const server = await startFakeServer((request, response) => {
    const redirect = redirects.shift();
    if (redirect) {
      response.writeHead(redirect.status, { Location: redirect.location, 'Content-Type': 'text/plain' });
      response.end(`Moved to ${redirect.location}`);
      return;
    }
    const failure = failures.shift();
    if (failure === 'hang') return;
    if (failure === 'error')
      return sendJson(response, 502, { ok: false, error_code: 502, description: `Bad Gateway ${botToken}` });
    if (failure === 'blocked') {
      return sendJson(response, 403, {
        ok: false,
        error_code: 403,
        description: 'Forbidden: bot was blocked by the user',
      });
    }
    if (request.path !== `/bot${encodeURIComponent(botToken)}/sendMessage`) {
      return sendJson(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    }
    const body = (request.body ?? {}) as { chat_id?: unknown; text?: unknown };
    if (typeof body.chat_id !== 'string' || typeof body.text !== 'string') {
      return sendJson(response, 400, {
        ok: false,
        error_code: 400,
        description: 'Bad Request: chat_id and text are required',
      });
    }
    messages.push({ chatId: body.chat_id, text: body.text });
    sendJson(response, 200, { ok: true, result: { message_id: messages.length } });
  });
  return {
    url: server.url,
    botToken,
    messages,
    requests: server.requests,
    lastCode: (chatId) =>
      /\b(\d{6})\b/.exec(messages.filter((message) => message.chatId === chatId).at(-1)?.text ?? '')?.[1],
    failNext(failure, times = 1) {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    redirectNext(location, status = 307) {
      redirects.push({ location, status });
    },
    close: () => server.close(),
  };
}
