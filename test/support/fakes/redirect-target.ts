import { sendJson, startFakeServer, type ReceivedRequest } from './provider-server.js';

/**
 * A second local server a fake provider's 307/308 points at: another origin that records whatever
 * reaches it. It answers as an obliging provider would (the SMS verification started or approved,
 * the chat message sent), so a client that followed the redirect would take it for success.
 */
export interface RedirectTarget {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startRedirectTarget(): Promise<RedirectTarget> {
  const server = await startFakeServer((_request, response) =>
    sendJson(response, 200, {
      id: 'VEelsewhere',
      status: 'approved',
      ok: true,
      result: { message_id: 1 },
    }),
  );
  return server;
}
