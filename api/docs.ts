import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';

const webDir = join(import.meta.dirname, 'web');
const docsHtml = readFileSync(join(webDir, 'docs.html'), 'utf8');
const docsScript = readFileSync(join(webDir, 'docs.js'), 'utf8');
const docsIcon = readFileSync(join(webDir, 'favicon.svg'), 'utf8');

/** The OpenAPI document and a self-contained API reference page that renders it. */
export function docsRoutes(openApi: object) {
  const router = new Router();
  const body = JSON.stringify(openApi);
  router.get('/api/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = body;
  });
  router.get('/docs', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsHtml;
  });
  router.get('/docs/app.js', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = docsScript;
  });
  router.get('/docs/favicon.svg', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/svg+xml';
    ctx.body = docsIcon;
  });
  return router;
}
