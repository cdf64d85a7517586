import type { TransactionClient } from '../../orm.js';
import type { ActingMember } from '../acting-member.js';
import { recordStaffAudit, type RequestOrigin } from '../audit.js';

/**
 * A company user's planning write: who, for which company, from which request. `actor`, the
 * dashboard member with the roles the route lets in, is checked again under the company lock
 * (db/writes/acting-member.ts): one signed out, deactivated or demoted while the write waited is
 * refused (401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED), writing nothing.
 */
export interface StaffAct {
  companyId: string;
  staffUserId: string;
  origin: RequestOrigin;
  actor?: ActingMember | undefined;
}

/**
 * The audit row of a planning write, in its transaction: the company it was written for first in
 * its details, as every staff change records it (a member of two companies is told apart).
 */
export function auditAct(
  client: TransactionClient,
  act: StaffAct,
  action: string,
  target: [kind: string, id: string],
  details: Record<string, unknown> = {},
): Promise<void> {
  const [kind, id] = target;
  return recordStaffAudit(
    client,
    { staffUserId: act.staffUserId, companyId: act.companyId, ...act.origin },
    action,
    { kind, id },
    details,
  );
}
