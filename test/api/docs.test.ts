import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness.js';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const SCREENSHOT = join(import.meta.dirname, '..', '..', '.data', 'docs-screenshot.png');

interface Operation {
  operationId?: unknown;
  summary?: unknown;
  tags?: unknown;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  responses?: Record<string, { description?: unknown }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Every `$ref` value anywhere in the document. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
  );
}

/** Follows a local JSON pointer (`#/components/schemas/Error`) from the document root. */
function resolvePointer(document: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, key) =>
        typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined,
      document,
    );
}

describe('API reference', () => {
  const app = useTestApp();
  let document: OpenApiDocument;

  beforeAll(async () => {
    const response = await app.request('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = response.body as OpenApiDocument;
  });

  describe('GET /api/openapi.json', () => {
    it('is an OpenAPI 3.1 document with paths and security schemes', () => {
      expect(document.openapi).toBe('3.1.0');
      expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
      expect(Object.keys(document.paths).length).toBeGreaterThanOrEqual(1);
      for (const path of Object.keys(document.paths)) expect(path).toMatch(/^\/([a-z]+\/)?api\//);
      expect(Object.keys(document.components.securitySchemes)).toEqual(
        expect.arrayContaining(['travellerBearer', 'travellerCookie']),
      );
    });

    it('gives every operation an operationId, summary, tags and responses', () => {
      const operations = operationsOf(document);
      expect(operations.length).toBeGreaterThanOrEqual(1);
      for (const { path, method, operation } of operations) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, where).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
        expect(
          typeof operation.summary === 'string' && operation.summary.trim().length > 0,
          `${where} summary`,
        ).toBe(true);
        expect(Array.isArray(operation.tags) && operation.tags.length > 0, `${where} tags`).toBe(true);
        for (const tag of operation.tags as unknown[]) expect(typeof tag, `${where} tag`).toBe('string');
        const responses = Object.entries(operation.responses ?? {});
        expect(responses.length, `${where} responses`).toBeGreaterThan(0);
        for (const [status, response] of responses) {
          expect(status, where).toMatch(/^([1-5]\d\d|default)$/);
          expect(typeof response.description, `${where} ${status} description`).toBe('string');
        }
      }
    });

    it('uses each operationId once', () => {
      const ids = operationsOf(document).map(({ operation }) => operation.operationId);
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
      expect(repeated).toEqual([]);
    });

    it('declares each path template variable as a required path parameter, and no others', () => {
      for (const { path, method, operation } of operationsOf(document)) {
        const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
        const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
        expect(declared.map((parameter) => parameter.name).sort(), `${method} ${path}`).toEqual(inTemplate);
        for (const parameter of declared)
          expect(parameter.required, `${method} ${path} ${parameter.name}`).toBe(true);
        const keys = (operation.parameters ?? []).map((parameter) => `${parameter.in}:${parameter.name}`);
        expect(new Set(keys).size, `${method} ${path} repeats a parameter`).toBe(keys.length);
      }
    });

    it('names only declared security schemes', () => {
      const declared = Object.keys(document.components.securitySchemes);
      for (const { path, method, operation } of operationsOf(document)) {
        for (const requirement of operation.security ?? []) {
          for (const scheme of Object.keys(requirement))
            expect(declared, `${method} ${path}`).toContain(scheme);
        }
      }
    });

    it('has no reference that points nowhere', () => {
      const refs = refsIn(document);
      for (const ref of refs) {
        expect(ref, 'only local references').toMatch(/^#\//);
        expect(resolvePointer(document, ref), ref).toBeDefined();
      }
    });
  });

  describe('/docs in Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: app.config.CHROMIUM_PATH,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
        ],
      });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('renders every operation, filters them, and loads without errors', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error')
          problems.push(`console: ${message.text()} at ${message.location().url}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) =>
        problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
      );
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
      });

      const response = await page.goto(`${app.baseUrl}/docs`);
      expect(response?.status()).toBe(200);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });

      const operations = operationsOf(document);
      const listed = page.locator('details.op');
      const shown = page.locator('details.op:not([hidden])');
      await expect.poll(() => listed.count()).toBe(operations.length);
      expect(await page.locator('#title').textContent()).toContain(document.info.title);

      // Each operation is listed under its own method and path.
      const rendered = await listed.evaluateAll((nodes) =>
        nodes.map(
          (node) =>
            `${node.querySelector('.method')?.textContent?.toLowerCase()} ${node.querySelector('.path')?.textContent}`,
        ),
      );
      expect(rendered.sort()).toEqual(operations.map(({ method, path }) => `${method} ${path}`).sort());

      // Filtering by an operation's path keeps exactly the operations whose path, summary, tags or
      // operationId mention it; the path with the fewest such operations shows the list narrowing.
      const matchesOf = (needle: string) =>
        operations.filter(({ path, method, operation }) =>
          [method, path, operation.summary, operation.operationId, ...((operation.tags as string[]) ?? [])]
            .join(' ')
            .toLowerCase()
            .includes(needle.toLowerCase()),
        );
      const target = operations.reduce((best, candidate) =>
        matchesOf(candidate.path).length < matchesOf(best.path).length ? candidate : best,
      );
      const matching = matchesOf(target.path);
      if (operations.length > 1) expect(matching.length).toBeLessThan(operations.length);
      await page.fill('#filter', target.path);
      await expect.poll(() => shown.count()).toBe(matching.length);
      expect(await shown.locator('.path').allTextContents()).toContain(target.path);

      await page.fill('#filter', 'no-operation-is-called-this');
      await expect.poll(() => shown.count()).toBe(0);
      expect(await page.locator('#empty').isVisible()).toBe(true);
      await page.fill('#filter', '');
      await expect.poll(() => shown.count()).toBe(operations.length);
      expect(await page.locator('#empty').isVisible()).toBe(false);

      // Opening an operation (one with path parameters when there is one) shows its parameters and responses.
      const withParameters = operations.find(({ path }) => path.includes('{')) ?? target;
      const opened = page.locator(`details.op[id="${String(withParameters.operation.operationId)}"]`);
      await opened.locator(':scope > summary').click();
      const body = opened.locator(':scope > .body');
      await expect.poll(() => body.isVisible()).toBe(true);
      expect(await body.textContent()).toContain('Responses');
      if (withParameters !== target) expect(await body.textContent()).toContain('Parameters');

      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: SCREENSHOT });
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});
