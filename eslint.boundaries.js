/**
 * The layers' allowed arrows (README "Architecture"), enforced by `no-restricted-imports`:
 *
 *   api/        → domain, db, providers, config, workflow contracts; never activities, worker or workflow bodies;
 *                 no SQL and no transactions of its own (`no-restricted-syntax`): it calls db/queries and db/writes
 *   activities/ → domain, db, providers, config; never workflows, api or worker
 *   db/         → domain, config; never workflows, activities, api or worker
 *   workflows/  → domain and contracts (activities as types only, for proxyActivities); deterministic
 *   providers/  → config only: outbound clients used by api and activities alike
 *   domain/     → nothing of the app
 *
 * test/lint-boundaries.test.ts proves each rule fails `npm run lint` on a violation.
 */
const app = (folder) => [`**/${folder}`, `**/${folder}/**`];
const builtIns = ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'os', 'child_process'];

const rule = (...patterns) => ['error', { patterns }];
const forbid = (folders, message, extra = {}) => ({
  group: folders.flatMap(app),
  message,
  ...extra,
});

const workflowBodies = {
  group: ['**/workflows/*', '!**/workflows/*.contract.js', '!**/workflows/shared.js'],
  message:
    'The API talks to workflows through their contracts (workflows/*.contract.ts, workflows/shared.ts), never their bodies.',
};

/**
 * A call of `.query(...)` or `.transaction(...)` on anything: SQL or a transaction. Koa's `ctx.query`
 * (a property, not a call) and a route spec's `query:` key are not calls, so they pass.
 */
const sqlInApi = {
  selector: 'CallExpression[callee.property.name=/^(query|transaction)$/]',
  message:
    'The API runs no SQL and opens no transaction: read through db/queries, write through db/writes (one transaction each).',
};

export const layerBoundaries = [
  {
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': rule(
        forbid(
          ['activities', 'worker'],
          'The API never imports activities or the worker: start, signal or update a workflow.',
        ),
        workflowBodies,
      ),
      'no-restricted-syntax': ['error', sqlInApi],
    },
  },
  {
    // The Temporal clients read workflow Queries (handle.query), which are no SQL.
    files: ['api/temporal/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': rule(
        forbid(
          ['workflows', 'api', 'worker'],
          'Activities import no workflow, API or worker code: shared value types and refusal codes live in domain/.',
        ),
      ),
    },
  },
  {
    files: ['db/**/*.ts'],
    rules: {
      'no-restricted-imports': rule(
        forbid(
          ['workflows', 'activities', 'api', 'worker', 'providers'],
          'db/ holds queries and transactions: shared value types and refusal codes live in domain/.',
        ),
      ),
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': rule(
        { group: builtIns, message: 'Workflow code must stay deterministic.' },
        forbid(
          ['db', 'api', 'worker', 'config', 'providers'],
          'Workflows import only domain code and contracts.',
        ),
        forbid(['activities'], 'Workflows see activities as types only (proxyActivities).', {
          allowTypeImports: true,
        }),
      ),
    },
  },
  {
    files: ['providers/**/*.ts'],
    rules: {
      'no-restricted-imports': rule(
        forbid(
          ['api', 'activities', 'workflows', 'worker', 'db', 'domain'],
          'Providers are outbound clients over config alone, used by api and activities alike.',
        ),
      ),
    },
  },
  {
    files: ['domain/**/*.ts'],
    ignores: ['domain/**/*.test.ts'],
    rules: {
      'no-restricted-imports': rule(
        forbid(
          ['api', 'activities', 'workflows', 'worker', 'db', 'providers', 'config'],
          'domain/ holds pure rules and imports nothing of the app.',
        ),
      ),
    },
  },
];
