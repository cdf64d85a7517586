import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { ResolvedTarget } from './webhook-target.js';

/**
 * One POST of a webhook notification to a company's receiver. It connects to the address
 * resolveTarget checked (the lookup is pinned, so the name cannot be re-resolved elsewhere between
 * the check and the connection); TLS still verifies the certificate against the URL's host name.
 * Redirects are never followed (a 3xx is just the answer), the whole exchange has one deadline,
 * and at most `excerptBytes` of the answer are read.
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

/** Reads at most `limit` bytes of the answer, then stops reading. */
function readExcerpt(response: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
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
  });
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
    const timer = setTimeout(() => {
      finish({
        kind: 'failed',
        error: 'TIMEOUT',
        detail: `no answer within ${post.timeoutMs} ms`,
        durationMs: elapsed(),
      });
      request.destroy();
    }, post.timeoutMs);
    request.on('response', (response) => {
      void readExcerpt(response, post.excerptBytes).then((excerpt) =>
        finish({
          kind: 'answered',
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'] ?? null,
          excerpt,
          durationMs: elapsed(),
        }),
      );
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
