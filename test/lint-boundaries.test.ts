import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer boundaries (eslint.boundaries.js) make `npm run lint` fail: each case lints a module
 * placed in a layer with the project's own configuration and expects the import refused or allowed.
 */
const eslint = new ESLint({
  cwd: new URL('..', import.meta.url).pathname,
  // Only the import rules matter here; type information is not needed for them.
  overrideConfig: tseslint.configs.disableTypeChecked,
});

async function refusedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

async function refusedSyntax(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages
    .filter((message) => message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

const importOf = (path: string, typeOnly = false) =>
  `import ${typeOnly ? 'type ' : ''}{ thing } from '${path}';\nexport const used: unknown = thing;\n`;

describe('layer boundaries enforced by lint', () => {
  it.each([
    ['api/customer/fixture.ts', '../../activities/index.js'],
    ['api/customer/fixture.ts', '../../worker/create-worker.js'],
    ['api/customer/fixture.ts', '../../workflows/journey-confirmation.js'],
    ['activities/fixture.ts', '../workflows/share-grant.contract.js'],
    ['activities/fixture.ts', '../api/app.js'],
    ['db/writes/fixture.ts', '../../workflows/share-grant.contract.js'],
    ['db/queries/fixture.ts', '../../activities/refusable.js'],
    ['workflows/fixture.ts', '../db/orm.js'],
    ['workflows/fixture.ts', '../config/index.js'],
    ['workflows/fixture.ts', 'node:crypto'],
    ['workflows/fixture.ts', '../activities/index.js'],
    ['domain/fixture.ts', '../db/orm.js'],
    ['domain/fixture.ts', '../workflows/shared.js'],
    ['providers/fixture.ts', '../db/orm.js'],
  ])('%s may not import %s', async (file, path) => {
    expect(await refusedImports(file, importOf(path))).toHaveLength(1);
  });

  it.each([
    ['api/customer/fixture.ts', '../../workflows/journey-confirmation.contract.js', false],
    ['api/customer/fixture.ts', '../../workflows/shared.js', false],
    ['api/customer/fixture.ts', '../../providers/mailer.js', false],
    ['activities/fixture.ts', '../db/writes/journeys.js', false],
    ['activities/fixture.ts', '../providers/mailer.js', false],
    ['db/writes/fixture.ts', '../../domain/refusal.js', false],
    ['workflows/fixture.ts', '../domain/journey-confirmation.js', false],
    ['workflows/fixture.ts', './journey-confirmation.contract.js', false],
    ['workflows/fixture.ts', '../activities/index.js', true],
  ])('%s may import %s (type only: %s)', async (file, path, typeOnly) => {
    expect(await refusedImports(file, importOf(path, typeOnly))).toEqual([]);
  });

  const exported = (expression: string) => `export const value = (db: any, ctx: any) => ${expression};\n`;

  it.each([
    ['api/auth/fixture.ts', "db.query('select 1')"],
    ['api/use-cases/fixture.ts', 'db.transaction(async () => 1)'],
    ['api/customer/fixture.ts', "db.pool.query<{ n: number }>('select 1')"],
  ])('%s may not call %s', async (file, expression) => {
    expect(await refusedSyntax(file, exported(expression))).toHaveLength(1);
  });

  it.each([
    ['api/customer/fixture.ts', 'ctx.query.limit'],
    ['api/customer/fixture.ts', "({ method: 'get', query: db })"],
    ['db/queries/fixture.ts', "db.query('select 1')"],
  ])('%s may use %s', async (file, expression) => {
    expect(await refusedSyntax(file, exported(expression))).toEqual([]);
  });
});

describe('module and function size enforced by lint', () => {
  async function sizeMessages(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages
      .filter((message) => message.ruleId === 'max-lines' || message.ruleId === 'max-lines-per-function')
      .map((message) => message.ruleId!);
  }
  const statements = (count: number) =>
    Array.from({ length: count }, (_, index) => `  total += ${index};`).join('\n');
  const fn = (lines: number) =>
    `export function f(): number {\n  let total = 0;\n${statements(lines)}\n  return total;\n}\n`;

  it('refuses a production function over 80 lines and a module over 400', async () => {
    expect(await sizeMessages('db/writes/fixture.ts', fn(85))).toEqual(['max-lines-per-function']);
    const module = Array.from({ length: 6 }, (_, index) =>
      fn(70).replace('function f', `function f${index}`),
    );
    expect(await sizeMessages('api/customer/fixture.ts', module.join('\n'))).toContain('max-lines');
  });

  it('leaves tests and functions of 80 lines alone', async () => {
    expect(await sizeMessages('db/writes/fixture.ts', fn(75))).toEqual([]);
    expect(await sizeMessages('test/api/fixture.test.ts', fn(120))).toEqual([]);
  });
});
