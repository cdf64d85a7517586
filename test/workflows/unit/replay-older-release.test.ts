import { describe, expect, it } from 'vitest';
import { replayRecordedHistory } from '../../support/workflow-env.js';

/**
 * A release deployed while workflows are in flight: histories recorded on the workflow code of
 * dd01644 (2026-11-25), each stopped where noted, replay on today's code without a nondeterminism
 * error (recorded with stubbed activities on the test stack's dev server).
 */
const histories = {
  'cash-shift-open': 'a shift opened and adjusted twice, still open',
  'share-grant-accepted': 'a grant opened (the bare open result of then) and accepted, its session running',
  'journey-requested': 'a journey awaiting its company, one decision signalled, still REQUESTED',
  'webhook-delivery-retrying': 'a delivery waiting to retry',
  'webhook-outbox-running': 'the relay mid-run',
  'trip-schedule': 'a schedule commit, to its end',
  'document-render': 'a render, to its end',
  'analytics-rollup': 'a rollup, to its end',
};

describe('workflows started by the release of 2026-11-25 carry on under this code', () => {
  for (const [name, state] of Object.entries(histories)) {
    it(`${name}: ${state}`, async () => {
      await expect(
        replayRecordedHistory(new URL(`./histories/release-2026-11-25-${name}.pb`, import.meta.url)),
      ).resolves.toBeUndefined();
    });
  }
});
