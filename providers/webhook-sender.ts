import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';
import { StringDecoder } from 'node:string_decoder';
import type { ResolvedTarget } from './webhook-target.js';

/**
 * One POST of a webhook notification to a company's receiver. It connects to the address
 * resolveTarget checked (the lookup is pinned, so the name cannot be re-resolved elsewhere between
 * the check and the connection); TLS still verifies the certificate against the URL's host name.
 * Redirects are never followed (a 3xx is just the answer), the whole exchange has one deadline,
 * and at most `excerptBytes` of the answer are read. The status line is the answer: a receiver that
 * has sent it but keeps its body open (a streaming framework, a proxy holding the connection) has
 * answered, and at the deadline the answer is that status with the part of the body read by then.
 * Only an exchange with no status line by the deadline is a TIMEOUT.
 */

export interface WebhookPost {
  target: ResolvedTarget;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  excerptBytes: number;
}

export type WebhookAnswer =
  | { kind: 'answered'; status: number; retryAfter: string | null; excerpt: string; durationMs: number }
  | { kind: 'failed'; error: 'TIMEOUT' | 'NETWORK_ERROR'; detail: string; durationMs: number };

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A lookup that always answers the checked address (in both shapes Node may ask for). */
function pinnedLookup(target: ResolvedTarget) {
  return (_host: string, options: { all?: boolean }, callback: LookupCallback) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * Reads at most `limit` bytes of the answer, then stops reading; `done` is called once the body
 * ends (or fails, or the limit is reached). The answer: what has been read so far, at any moment,
 * as whole characters (a character the limit cut in two is left out, not shown as U+FFFD).
 */
function readExcerpt(response: IncomingMessage, limit: number, done: () => void): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      response.destroy();
      done();
    }
  });
  response.on('end', done);
  response.on('error', done);
  response.on('close', done);
  return () => new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, limit));
}

export function postWebhook(post: WebhookPost): Promise<WebhookAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { url } = post.target;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<WebhookAnswer>((resolve) => {
    let settled = false;
    const finish = (answer: WebhookAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const request = send(url, {
      method: 'POST',
      headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
      lookup: pinnedLookup(post.target),
      agent: false,
    });
    /** Set once the status line has arrived: the answer as it stands (its body read so far). */
    let answered: (() => WebhookAnswer) | undefined;
    const timer = setTimeout(() => {
      finish(
        answered?.() ?? {
          kind: 'failed',
          error: 'TIMEOUT',
          detail: `no answer within ${post.timeoutMs} ms`,
          durationMs: elapsed(),
        },
      );
      request.destroy();
    }, post.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'] ?? null;
      const excerpt = readExcerpt(response, post.excerptBytes, () => finish(answered!()));
      answered = () => ({ kind: 'answered', status, retryAfter, excerpt: excerpt(), durationMs: elapsed() });
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        kind: 'failed',
        error: 'NETWORK_ERROR',
        detail: error.code ?? error.message,
        durationMs: elapsed(),
      }),
    );
    request.end(post.body);
  });
}
