import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { UUID_PATTERN } from '../http/schemas.js';

const shareDir = join(import.meta.dirname, 'share');
const pageHtml = readFileSync(join(shareDir, 'share.html'), 'utf8');
const pageScript = readFileSync(join(shareDir, 'share.js'), 'utf8');
const pageStyle = readFileSync(join(shareDir, 'share.css'), 'utf8');

/**
 * The page can run only its own script and style (no inline code), talk only to this origin, and
 * show the PDF it fetched as a blob in a frame; nobody may frame the page itself.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'frame-src blob:',
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SHARE_BASE = '/share';

/**
 * App-level, before the gates that answer before any route (an unknown method's 405, the body
 * reader's 400): every answer under /share is private and never indexed, the 404 of a path that
 * names no grant included.
 */
export function sharePageAnswerHeaders() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path === SHARE_BASE || ctx.path.startsWith(`${SHARE_BASE}/`)) {
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Robots-Tag', 'noindex, nofollow');
    }
    await next();
  };
}

/**
 * The share page /share/{grantId} (ARCHITECTURE "Surfaces"): one static HTML page in Arabic and
 * English whose script reads the one-use secret from the URL fragment, previews and accepts the
 * share, then shows (or offers to download) the document. The server never sees the fragment, and
 * the page is the same for every grant: it carries no grant data. Its private, unindexed headers
 * are set before (`sharePageAnswerHeaders`).
 */
export function sharePageRoutes() {
  const router = new Router({ sensitive: true });
  router.get('/share/assets/share.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = pageScript;
  });
  router.get('/share/assets/share.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = pageStyle;
  });
  router.get('/share/:grantId', (ctx) => {
    if (!UUID_PATTERN.test(ctx.params.grantId ?? '')) return;
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = pageHtml;
  });
  return router;
}
