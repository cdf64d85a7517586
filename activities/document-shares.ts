import { acceptGrant, expireGrant, openGrant, revokeGrant } from '../db/writes/document-shares.js';
import { ShareRefusal, type ShareActor, type ShareGrantInput } from '../domain/document-sharing.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The share-grant workflow's effects: each activity is one transaction of
 * db/writes/document-shares.ts, idempotent under retry.
 */
export function createDocumentShareActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    openShareGrant: (input: ShareGrantInput) => openGrant(db, input),
    acceptShareGrant: (input: { grantId: string; sessionTokenHash: string; sessionMilliseconds: number }) =>
      refusable(ShareRefusal, () => acceptGrant(db, input)),
    revokeShareGrant: (input: { grantId: string; by: ShareActor }) =>
      refusable(ShareRefusal, () => revokeGrant(db, input)),
    expireShareGrant: (input: { grantId: string }) => expireGrant(db, input),
  };
}
