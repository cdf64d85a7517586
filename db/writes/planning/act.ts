import type { TransactionClient } from '../../orm.js';
import { recordStaffAct, type RequestOrigin } from '../audit.js';

/** A company user's planning write: who, for which company, from which request. */
export interface StaffAct {
  companyId: string;
  staffUserId: string;
  origin: RequestOrigin;
}

/** The audit row of a planning write, in its transaction. */
export function auditAct(
  client: TransactionClient,
  act: StaffAct,
  action: string,
  target: [kind: string, id: string],
  details: Record<string, unknown> = {},
): Promise<void> {
  const [kind, id] = target;
  return recordStaffAct(
    client,
    { staffUserId: act.staffUserId, ...act.origin },
    action,
    { kind, id },
    details,
  );
}
