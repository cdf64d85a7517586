/**
 * The layers' allowed arrows (README "Architecture"), enforced by `no-restricted-imports`:
 *
 *   api/        → domain, db, providers, config, workflow contracts; never activities, worker or workflow bodies
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
    },
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
