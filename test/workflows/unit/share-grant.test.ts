import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  acceptUpdate,
  grantStateQuery,
  openUpdate,
  revokeUpdate,
  SHARE_GRANT_WORKFLOW,
  sessionIdleSignal,
  type AcceptRequest,
  type ShareActor,
  type ShareGrantInput,
} from '../../../workflows/share-grant.contract.js';
import type { shareGrant } from '../../../workflows/share-grant.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import {
  Calls,
  refusalOf,
  replayRecordedHistory,
  useWorkflowEnvironment,
} from '../../support/workflow-env.js';

/** The share-grant workflow's transitions and deadlines with stubbed activities (no PostgreSQL). */
type ShareSteps = Pick<
  Activities,
  'openShareGrant' | 'acceptShareGrant' | 'revokeShareGrant' | 'expireShareGrant'
>;

const inFuture = (milliseconds: number) => new Date(Date.now() + milliseconds).toISOString();

function shareSteps() {
  const calls = new Calls();
  const steps: ShareSteps = {
    async openShareGrant(input) {
      calls.record('openShareGrant', input);
      return { done: { grantId: input.grantId, linkExpiresAt: inFuture(input.linkMilliseconds) } };
    },
    async acceptShareGrant(input) {
      calls.record('acceptShareGrant', input);
      return { done: { sessionId: randomUUID(), expiresAt: inFuture(input.sessionMilliseconds) } };
    },
    async revokeShareGrant(input) {
      calls.record('revokeShareGrant', input);
      return { done: { status: 'REVOKED' as const, revokedAt: new Date().toISOString() } };
    },
    async expireShareGrant(input) {
      calls.record('expireShareGrant', input);
      return { status: 'EXPIRED' };
    },
  };
  return { steps, calls };
}

const OWNER: ShareActor = { kind: 'TRAVELLER', id: randomUUID(), role: 'TRAVELLER' };
const SECRET_HASH = 'a'.repeat(64);

/** A new grant's input and the start its opening Update comes with (update-with-start). */
function grantOpening(
  taskQueue: string,
  durations: { linkMilliseconds: number; sessionMilliseconds: number },
) {
  const input: ShareGrantInput = {
    grantId: randomUUID(),
    bookingId: randomUUID(),
    companyId: randomUUID(),
    documentKind: 'BOOKING_CONFIRMATION',
    presentation: 'DOWNLOAD',
    issuer: OWNER,
    secretHash: SECRET_HASH,
    ...durations,
  };
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof shareGrant>(SHARE_GRANT_WORKFLOW, {
    workflowId: workflowIds.shareGrant(input.grantId),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return { input, startWorkflowOperation };
}

/** Opens a new grant the way the API does: update-with-start. */
async function openGrant(
  client: Client,
  taskQueue: string,
  durations: { linkMilliseconds: number; sessionMilliseconds: number },
) {
  const { input, startWorkflowOperation } = grantOpening(taskQueue, durations);
  const opened = await client.workflow.executeUpdateWithStart(openUpdate, {
    args: [],
    updateId: `open:${input.grantId}`,
    startWorkflowOperation,
  });
  return { input, opened, handle: await startWorkflowOperation.workflowHandle() };
}

/** A link and a session lasting 10 minutes unless a test is about their end. */
const LONG_LIVED = { linkMilliseconds: 600_000, sessionMilliseconds: 600_000 };
const accept = (secretHash = SECRET_HASH): { args: [AcceptRequest] } => ({
  args: [{ secretHash, sessionTokenHash: 'b'.repeat(64) }],
});

describe('shareGrant workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('open → accept → the session reaches its hard end: EXPIRED', async () => {
    const { steps, calls } = shareSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, opened, handle } = await openGrant(temporal.client, taskQueue, {
        ...LONG_LIVED,
        sessionMilliseconds: 500,
      });
      expect(opened).toMatchObject({ grantId: input.grantId });
      expect(await handle.query(grantStateQuery)).toMatchObject({ phase: 'CREATED', sessionExpiresAt: null });
      const session = await handle.executeUpdate(acceptUpdate, accept());
      expect(await handle.query(grantStateQuery)).toMatchObject({
        phase: 'ACCEPTED',
        sessionExpiresAt: session.expiresAt,
      });
      expect(await handle.result()).toMatchObject({ phase: 'EXPIRED', sessionExpiresAt: session.expiresAt });
      expect(calls.names()).toEqual(['openShareGrant', 'acceptShareGrant', 'expireShareGrant']);
      expect(calls.inputsOf('acceptShareGrant')).toEqual([
        { grantId: input.grantId, sessionTokenHash: 'b'.repeat(64), sessionMilliseconds: 500 },
      ]);
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['EXPIRED'] });
    });
  });

  it('an accepted grant reported idle expires at once, before its hard end', async () => {
    const { steps, calls } = shareSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await openGrant(temporal.client, taskQueue, LONG_LIVED);
      await handle.executeUpdate(acceptUpdate, accept());
      await handle.signal(sessionIdleSignal);
      expect(await handle.result()).toMatchObject({ phase: 'EXPIRED' });
      expect(calls.names()).toEqual(['openShareGrant', 'acceptShareGrant', 'expireShareGrant']);
    });
  });

  it('a link not accepted in time expires', async () => {
    const { steps, calls } = shareSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await openGrant(temporal.client, taskQueue, {
        ...LONG_LIVED,
        linkMilliseconds: 400,
      });
      expect(await handle.result()).toMatchObject({ phase: 'EXPIRED', sessionExpiresAt: null });
      expect(calls.inputsOf('expireShareGrant')).toEqual([{ grantId: input.grantId }]);
      expect(calls.names()).not.toContain('acceptShareGrant');
    });
  });

  it('revoke: REVOKED, the process ends and nothing expires', async () => {
    const { steps, calls } = shareSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await openGrant(temporal.client, taskQueue, LONG_LIVED);
      const revoked = await handle.executeUpdate(revokeUpdate, { args: [{ by: OWNER }] });
      expect(revoked.status).toBe('REVOKED');
      expect(await handle.result()).toMatchObject({ phase: 'REVOKED' });
      expect(calls.inputsOf('revokeShareGrant')).toEqual([{ grantId: input.grantId, by: OWNER }]);
      expect(calls.names()).not.toContain('expireShareGrant');
    });
  });

  it('an open its step refuses (the staff issuer company suspended meanwhile) answers the refusal; the process ends NEW', async () => {
    const { steps, calls } = shareSteps();
    steps.openShareGrant = async (input) => {
      calls.record('openShareGrant', input);
      return { refused: { status: 403, code: 'COMPANY_SUSPENDED', message: 'The company is suspended' } };
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, startWorkflowOperation } = grantOpening(taskQueue, LONG_LIVED);
      const opening = temporal.client.workflow.executeUpdateWithStart(openUpdate, {
        args: [],
        updateId: `open:${input.grantId}`,
        startWorkflowOperation,
      });
      expect(await refusalOf(opening)).toEqual({
        code: 'COMPANY_SUSPENDED',
        status: 403,
        message: 'The company is suspended',
      });
      const handle = await startWorkflowOperation.workflowHandle();
      expect(await handle.result()).toMatchObject({ phase: 'NEW', linkExpiresAt: null });
      expect(calls.names()).toEqual(['openShareGrant']);
    });
  });

  it('an open step recorded before it could refuse (the bare grant, no `done`) still opens the grant', async () => {
    const { steps, calls } = shareSteps();
    steps.openShareGrant = async (input) => {
      calls.record('openShareGrant', input);
      const bare = { grantId: input.grantId, linkExpiresAt: inFuture(input.linkMilliseconds) };
      // The result older histories hold; the step's type has carried refusals since.
      return bare as unknown as Awaited<ReturnType<ShareSteps['openShareGrant']>>;
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, opened, handle } = await openGrant(temporal.client, taskQueue, LONG_LIVED);
      expect(opened).toMatchObject({ grantId: input.grantId });
      expect(await handle.query(grantStateQuery)).toMatchObject({ phase: 'CREATED' });
      await handle.executeUpdate(revokeUpdate, { args: [{ by: OWNER }] });
      expect(await handle.result()).toMatchObject({ phase: 'REVOKED' });
    });
  });

  it('refuses a wrong secret (as an unknown grant) and a second accept', async () => {
    const { steps, calls } = shareSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await openGrant(temporal.client, taskQueue, LONG_LIVED);
      expect(await refusalOf(handle.executeUpdate(acceptUpdate, accept('c'.repeat(64))))).toEqual({
        code: 'SHARE_NOT_FOUND',
        status: 404,
        message: 'No such share',
      });
      await handle.executeUpdate(acceptUpdate, accept());
      expect(await refusalOf(handle.executeUpdate(acceptUpdate, accept()))).toEqual({
        code: 'SHARE_ALREADY_ACCEPTED',
        status: 409,
        message: 'This link was already used',
      });
      // Even now a wrong secret says only "no such share".
      expect((await refusalOf(handle.executeUpdate(acceptUpdate, accept('c'.repeat(64))))).code).toBe(
        'SHARE_NOT_FOUND',
      );
      expect(calls.names()).toEqual(['openShareGrant', 'acceptShareGrant']);
      await handle.executeUpdate(revokeUpdate, { args: [{ by: OWNER }] });
      expect(await handle.result()).toMatchObject({ phase: 'REVOKED' });
    });
  });

  it("hands the accept the API's deadline; one refused as late leaves the grant CREATED and the retry accepts", async () => {
    const { steps, calls } = shareSteps();
    const acceptOnTime = steps.acceptShareGrant;
    let late = true;
    steps.acceptShareGrant = async (input) => {
      if (!late) return acceptOnTime(input);
      late = false;
      calls.record('acceptShareGrant', input);
      return {
        refused: {
          status: 503,
          code: 'SHARE_ACCEPT_LATE',
          message: 'The accept came after the request stopped waiting for it; nothing was written',
        },
      };
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await openGrant(temporal.client, taskQueue, LONG_LIVED);
      const acceptBy = Date.now() + 20_000;
      const request = { secretHash: SECRET_HASH, sessionTokenHash: 'b'.repeat(64), acceptBy };
      expect(await refusalOf(handle.executeUpdate(acceptUpdate, { args: [request] }))).toMatchObject({
        code: 'SHARE_ACCEPT_LATE',
        status: 503,
      });
      expect(await handle.query(grantStateQuery)).toMatchObject({ phase: 'CREATED', sessionExpiresAt: null });
      const retry = { ...request, sessionTokenHash: 'c'.repeat(64), acceptBy: Date.now() + 20_000 };
      const session = await handle.executeUpdate(acceptUpdate, { args: [retry] });
      expect(await handle.query(grantStateQuery)).toMatchObject({
        phase: 'ACCEPTED',
        sessionExpiresAt: session.expiresAt,
      });
      expect(calls.inputsOf('acceptShareGrant')).toEqual([
        { grantId: input.grantId, sessionTokenHash: 'b'.repeat(64), sessionMilliseconds: 600_000, acceptBy },
        {
          grantId: input.grantId,
          sessionTokenHash: 'c'.repeat(64),
          sessionMilliseconds: 600_000,
          acceptBy: retry.acceptBy,
        },
      ]);
      await handle.executeUpdate(revokeUpdate, { args: [{ by: OWNER }] });
      expect(await handle.result()).toMatchObject({ phase: 'REVOKED' });
    });
  });

  it('a run started before the accept deadline replays as it was recorded', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before acceptBy: open, an
    // accept without a deadline, revoke.
    await expect(
      replayRecordedHistory(new URL('./histories/share-grant-before-accept-deadline.pb', import.meta.url)),
    ).resolves.toBeUndefined();
  });
});
