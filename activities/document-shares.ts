import {
  acceptGrant,
  expireGrant,
  openGrant,
  revokeGrant,
  type AcceptGrantInput,
} from '../db/writes/document-shares.js';
import { ShareRefusal, type ShareActor, type ShareGrantInput } from '../domain/document-sharing.js';
import { Refusal } from '../domain/refusal.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The share-grant workflow's effects: each activity is one transaction of
 * db/writes/document-shares.ts, idempotent under retry. A business refusal comes back as data:
 * the grant's own (ShareRefusal), and, for the open of a staff or driver issuer's grant, the
 * company's standing or the issuer's session, checked again as the grant is written (403
 * COMPANY_SUSPENDED, 401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED). Thrown, any would be an
 * activity failure that retries.
 */
export function createDocumentShareActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    openShareGrant: (input: ShareGrantInput) => refusable(Refusal, () => openGrant(db, input)),
    acceptShareGrant: (input: AcceptGrantInput) => refusable(ShareRefusal, () => acceptGrant(db, input)),
    revokeShareGrant: (input: { grantId: string; by: ShareActor }) =>
      refusable(ShareRefusal, () => revokeGrant(db, input)),
    expireShareGrant: (input: { grantId: string }) => expireGrant(db, input),
  };
}
