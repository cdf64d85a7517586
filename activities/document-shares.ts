import {
  acceptGrant,
  expireGrant,
  openGrant,
  revokeGrant,
  ShareRefusal,
} from '../db/writes/document-shares.js';
import type { ShareActor, ShareGrantInput, ShareRefusalCode } from '../workflows/share-grant.contract.js';
import type { ActivityDeps } from './index.js';

/** A business refusal returned as a value: an answer for the Update caller, not a failed activity. */
export type Refusable<T> =
  { done: T; refused?: never } | { refused: { code: ShareRefusalCode; message: string }; done?: never };

/**
 * The share-grant workflow's effects: each activity is one transaction of
 * db/writes/document-shares.ts, idempotent under retry.
 */
export function createDocumentShareActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    openShareGrant: (input: ShareGrantInput) => openGrant(db, input),
    acceptShareGrant: (input: { grantId: string; sessionTokenHash: string; sessionMilliseconds: number }) =>
      refusable(() => acceptGrant(db, input)),
    revokeShareGrant: (input: { grantId: string; by: ShareActor }) => refusable(() => revokeGrant(db, input)),
    expireShareGrant: (input: { grantId: string }) => expireGrant(db, input),
  };
}

async function refusable<T>(work: () => Promise<T>): Promise<Refusable<T>> {
  try {
    return { done: await work() };
  } catch (error) {
    if (error instanceof ShareRefusal) return { refused: { code: error.code, message: error.message } };
    throw error;
  }
}
