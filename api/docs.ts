import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';

const webDir = join(import.meta.dirname, 'web');
const docsHtml = readFileSync(join(webDir, 'docs.html'), 'utf8');
const docsScript = readFileSync(join(webDir, 'docs.js'), 'utf8');
const docsIcon = readFileSync(join(webDir, 'favicon.svg'), 'utf8');

/** A fixed public file: the same body for everyone, cached for maxAge seconds. */
interface PublicFile {
  type: string;
  body: string;
  maxAge: number;
  headers?: Record<string, string>;
}

/** The OpenAPI document and a self-contained API reference page that renders it. */
export function docsRoutes(openApi: object) {
  const files: Record<string, PublicFile> = {
    '/api/openapi.json': { type: 'application/json', body: JSON.stringify(openApi), maxAge: 300 },
    '/docs': {
      type: 'text/html; charset=utf-8',
      body: docsHtml,
      maxAge: 300,
      headers: {
        'Content-Security-Policy':
          "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      },
    },
    '/docs/app.js': { type: 'text/javascript; charset=utf-8', body: docsScript, maxAge: 300 },
    '/docs/favicon.svg': { type: 'image/svg+xml', body: docsIcon, maxAge: 86400 },
  };
  const router = new Router({ sensitive: true });
  for (const [path, file] of Object.entries(files)) {
    router.get(path, (ctx) => {
      ctx.set('Cache-Control', `public, max-age=${file.maxAge}`);
      for (const [name, value] of Object.entries(file.headers ?? {})) ctx.set(name, value);
      ctx.type = file.type;
      ctx.body = file.body;
    });
  }
  return router;
}
