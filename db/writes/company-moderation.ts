import {
  applyCompanyAction,
  companyAuditAction,
  type CompanyAction,
  type CompanyStanding,
} from '../../domain/company-moderation.js';
import type { ScopeKind } from '../../domain/journey-confirmation.js';
import { CompanyAdminAction } from '../entities/admin-console.js';
import { Company } from '../entities/company.js';
import type { Database, TransactionClient } from '../orm.js';
import { lockActingAdmin, type AdminActor } from './acting-admin.js';
import { recordAct } from './audit.js';
import { bumpVersion } from './platform-state.js';

/**
 * An administrator's action on a company's standing (warn, suspend, unsuspend, verify, unverify),
 * in one transaction: the acting administrator checked again (db/writes/acting-admin.ts: one
 * disabled or demoted meanwhile is refused), the company row locked, the rule of
 * domain/company-moderation.ts applied, the change saved through the transaction's EntityManager,
 * the company's history row and the audit row (actor, reason, before, after) written beside it. A
 * refused action writes nothing.
 */

export interface CompanyActionInput {
  companyId: string;
  action: CompanyAction;
  reason: string;
  adminId: string;
}

/** A company's journey request still waiting for its decision. */
export interface PendingRequest {
  id: string;
  scope_kind: ScopeKind;
  scope_id: string;
}

export interface CompanyActionOutcome {
  actionId: string;
  before: CompanyStanding;
  after: CompanyStanding;
  /** SUSPEND: the company's requests still pending when the suspension committed. */
  pendingRequests: PendingRequest[];
}

async function lockStanding(sql: TransactionClient, companyId: string): Promise<CompanyStanding | null> {
  const { rows } = await sql.query<CompanyStanding>(
    `select status, verified from companies where id = $1 for update`,
    [companyId],
  );
  return rows[0] ?? null;
}

/** The action's outcome, or null when no company has this id. A refused action throws its 409. */
export async function actOnCompany(
  db: Database,
  input: CompanyActionInput,
  audit: AdminActor,
): Promise<CompanyActionOutcome | null> {
  return db.transaction(async (sql) => {
    // The actor's row before the company's, as every administration write takes it.
    await lockActingAdmin(sql, audit);
    const before = await lockStanding(sql, input.companyId);
    if (!before) return null;
    const after = applyCompanyAction(before, input.action);
    const company = await sql.em.findOneOrFail(Company, input.companyId);
    sql.em.assign(company, { status: after.status, verified: after.verified });
    const action = sql.em.create(CompanyAdminAction, {
      companyId: input.companyId,
      action: input.action,
      reason: input.reason,
      adminId: input.adminId,
      standingBefore: before,
      standingAfter: after,
    });
    await sql.em.flush();
    if (before.status !== after.status) await bumpVersion(sql, 'company_standing');
    const pendingRequests = input.action === 'SUSPEND' ? await pendingRequestsOf(sql, input.companyId) : [];
    const target = { kind: 'company', id: input.companyId };
    await recordAct(sql, audit, companyAuditAction(input.action), target, {
      reason: input.reason,
      before,
      after,
      historyId: action.id,
      ...(input.action === 'SUSPEND' ? { pendingRequests: pendingRequests.map((row) => row.id) } : {}),
    });
    return { actionId: action.id, before, after, pendingRequests };
  });
}

async function pendingRequestsOf(sql: TransactionClient, companyId: string): Promise<PendingRequest[]> {
  const { rows } = await sql.query<PendingRequest>(
    `select id, scope_kind, scope_id from confirmation_requests
     where company_id = $1 and status = 'PENDING' order by created_at, id`,
    [companyId],
  );
  return rows;
}
