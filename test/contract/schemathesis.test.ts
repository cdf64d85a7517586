import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdminBrowser, createAdmin } from '../api/admin/helpers.js';
import { createCompany } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';
import { usePrivateDatabase } from '../support/private-database.js';
import { usePrivateWorker } from '../support/private-worker.js';
import { createStaffMember, staffLogin } from '../support/staff.js';

/**
 * Contract fuzzing: schemathesis (pinned in scripts/bootstrap.mjs, installed into .venv) reads
 * GET /api/openapi.json of the real stack (PostgreSQL, Temporal, a worker, the API) and sends
 * generated requests, valid and invalid, to every operation with every check: no 5xx, every answer
 * is one the document lists and matches its schema, invalid input is refused and valid input is
 * not. Four identities: nobody, a traveller (cookie + CSRF), a company OWNER (dashboard), a
 * SUPER_ADMIN. The fuzzed platform lives in a private database with its own worker and task queue,
 * so rate-limit counters, maintenance windows and feature flags it sets reach no other test file.
 *
 * Fixed seed and a bounded number of examples per operation (README "Testing" keeps the figures):
 * SCHEMATHESIS_MAX_EXAMPLES and SCHEMATHESIS_SEED override them.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMATHESIS = join(ROOT, '.venv', 'bin', 'schemathesis');
const REPORTS = join(ROOT, '.data', 'schemathesis');
const SEED = Number(process.env.SCHEMATHESIS_SEED ?? 20261124);
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 3);
const TASK_QUEUE = `contract-fuzz-${process.pid}`;

/**
 * Operations left out of a signed-in run, each with its reason. Nothing else is excluded: every
 * check runs against every other operation.
 */
const SIGNED_IN_EXCLUSIONS = [
  // Signing out ends the session the rest of the run signs in with (every later answer a 401).
  '--exclude-operation-id-regex',
  '^(logout|staffLogout|adminLogout)$',
];

interface Identity {
  name: string;
  /**
   * Credentials by security scheme, given to schemathesis as its own auth (not a fixed header), so
   * its ignored_auth check can leave them out and expect 401.
   */
  auth: Record<string, { api_key: string } | { bearer: string }>;
  /** Extra headers: the CSRF token of a session's writes. */
  headers: Record<string, string>;
  /** schemathesis filter options: a signed-in run covers its own surface (the others answer it as nobody). */
  filters: string[];
}

const database = usePrivateDatabase('contract');
const app = useTestApp({ DATABASE_URL: database.url, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
const identities: Identity[] = [{ name: 'anonymous', auth: {}, headers: {}, filters: [] }];
const surface = (base: string) => ['--include-path-regex', `^${base}/`, ...SIGNED_IN_EXCLUSIONS];

usePrivateWorker(database.url, TASK_QUEUE, 'contract-worker');

beforeAll(async () => {
  const traveller = await app.signIn();
  identities.push({
    name: 'traveller',
    auth: { travellerBearer: { bearer: traveller.token } },
    headers: {},
    filters: surface('/api'),
  });

  const company = await createCompany(app.db);
  const owner = await createStaffMember(app.db, company.id, 'OWNER');
  const staff = await staffLogin(app, { email: owner.email, password: owner.password });
  expect(staff.response.status).toBe(200);
  const staffSession = /(?:^|; )bb_staff=([^;]+)/.exec(staff.cookie)![1]!;
  identities.push({
    name: 'staff',
    auth: { companySession: { api_key: staffSession } },
    headers: { 'X-CSRF-Token': staff.csrf },
    filters: surface('/dashboard/api'),
  });

  const admin = await createAdmin(app.db, { role: 'SUPER_ADMIN' });
  const browser = new AdminBrowser(app);
  expect((await browser.signIn(admin)).status).toBe(200);
  identities.push({
    name: 'admin',
    auth: { adminSession: { api_key: browser.token } },
    headers: { 'X-CSRF-Token': browser.csrf },
    filters: surface('/admin/api'),
  });
}, 120_000);

/** `<METHOD path> <code>` of every failure and error in a schemathesis log. */
function failuresIn(output: string): string[] {
  const found: string[] = [];
  let operation = '';
  let section = '';
  for (const line of output.split('\n')) {
    const banner = /^={5,} (\w+) ={5,}$/.exec(line);
    if (banner) section = banner[1]!;
    if (section !== 'FAILURES' && section !== 'ERRORS') continue;
    const heading = /^_{3,} ([A-Z]+ \S+) _{3,}$/.exec(line);
    if (heading) {
      operation = heading[1]!;
      if (section === 'ERRORS') found.push(`${operation} ERROR`);
    }
    // Not the API: CPython 3.11's ast module races when schemathesis's two worker threads describe
    // Hypothesis lambdas at once; the operation is reported as a runtime error, not a failure.
    const index = found.lastIndexOf(`${operation} ERROR`);
    if (section === 'ERRORS' && index >= 0 && line.includes('AST constructor recursion depth mismatch'))
      found.splice(index, 1);
    const check = /^- (ST\d+) /.exec(line);
    if (check && section === 'FAILURES') found.push(`${operation} ${check[1]}`);
  }
  return [...new Set(found)];
}

interface Outcome {
  code: number;
  output: string;
}

function runSchemathesis(identity: Identity): Promise<Outcome> {
  mkdirSync(REPORTS, { recursive: true });
  // The shared settings (test/contract/schemathesis.toml) and this identity's credentials.
  const configFile = join(REPORTS, `${identity.name}.toml`);
  const auth = Object.entries(identity.auth).map(
    ([scheme, credential]) =>
      `[auth.openapi.${scheme}]\n${Object.entries(credential)
        .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
        .join('\n')}\n`,
  );
  writeFileSync(
    configFile,
    [...auth, readFileSync(join(import.meta.dirname, 'schemathesis.toml'), 'utf8')].join('\n'),
  );
  const args = [
    '--config-file',
    configFile,
    'run',
    `${app.baseUrl}/api/openapi.json`,
    '--url',
    app.baseUrl,
    '--checks',
    'all',
    '--seed',
    String(SEED),
    '--max-examples',
    String(MAX_EXAMPLES),
    '--workers',
    '2',
    '--no-shrink',
    '--suppress-health-check',
    'all',
    '--request-timeout',
    '20',
    '--report',
    'junit',
    '--report-junit-path',
    join(REPORTS, `${identity.name}.xml`),
    ...Object.entries(identity.headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
    ...identity.filters,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '', PYTHONUNBUFFERED: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * The end of schemathesis' output without its pytest-style banners ("==== 3 warnings in 38.20s ===="):
 * CI reads such a banner as pytest's closing line, finds no test counted in it and judges the whole run
 * to have executed no test. The full output stays in the log file.
 */
function summaryOf(output: string): string {
  return output
    .split('\n')
    .slice(-40)
    .filter((line) => !/^=+ .* =+$/.test(line.trim()))
    .join('\n');
}

describe('contract fuzzing with schemathesis', () => {
  it('has schemathesis installed by bootstrap', () => {
    expect(existsSync(SCHEMATHESIS), 'run node scripts/bootstrap.mjs').toBe(true);
  });

  for (const name of ['anonymous', 'traveller', 'staff', 'admin']) {
    it(`finds no failure as ${name}`, async () => {
      const identity = identities.find((candidate) => candidate.name === name)!;
      const outcome = await runSchemathesis(identity);
      writeFileSync(join(REPORTS, `${name}.log`), outcome.output);
      console.log(
        `[schemathesis ${name}] full log: ${join(REPORTS, `${name}.log`)}\n${summaryOf(outcome.output)}`,
      );
      expect(outcome.output, 'schemathesis ran to its summary').toMatch(/=+ SUMMARY =+/);
      const found = failuresIn(outcome.output).map((failure) => `${name} ${failure}`);
      expect(found, outcome.output.slice(-20_000)).toEqual([]);
    }, 600_000);
  }
});
