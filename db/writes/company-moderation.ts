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

/**
 * A journey request a suspension ends, one per scope (a journey or an order) still waiting for
 * decisions with a leg on the company's trips: the company's own request still pending, else (its
 * leg confirmed automatically, or it approved) one of the other companies' pending requests, ended
 * for the suspension and the whole scope with it.
 */
export interface PendingRequest {
  id: string;
  scope_kind: ScopeKind;
  scope_id: string;
  /** The request's company: the suspended company, or another company of the scope. */
  company_id: string;
}

export interface CompanyActionOutcome {
  actionId: string;
  before: CompanyStanding;
  after: CompanyStanding;
  /** SUSPEND: the requests ending the scopes still waiting with a leg on the company when the suspension committed. */
  pendingRequests: PendingRequest[];
}

/**
 * The company row FOR UPDATE: confirms, decisions and journey holds in flight share it, so the
 * action waits for them. A hold takes it after its trips, scope and traveller
 * (db/writes/journeys/hold.ts): this transaction locks none of those after the company row.
 */
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

/**
 * The requests the suspension ends (PendingRequest): every pending request of the company, and one
 * pending request of each other scope waiting with a leg on the company, the first by company id.
 * Read under the company's update lock: a confirm or a decision in flight holds the company row
 * FOR SHARE, so it has committed and its requests or its outcome are seen here. Only the pending
 * requests are read (the live ones), each matched to the company's legs.
 */
async function pendingRequestsOf(sql: TransactionClient, companyId: string): Promise<PendingRequest[]> {
  const { rows } = await sql.query<PendingRequest>(
    `select id, scope_kind, scope_id, company_id from (
       select distinct on (r.scope_kind, r.scope_id) r.id, r.scope_kind, r.scope_id, r.company_id, r.created_at
       from confirmation_requests r
       where r.status = 'PENDING'
         and (r.company_id = $1
              or exists (select 1 from journeys j join journey_legs l on l.journey_id = j.id
                         where l.company_id = $1
                           and ((r.scope_kind = 'JOURNEY' and j.id = r.scope_id)
                                or (r.scope_kind = 'ORDER' and j.order_id = r.scope_id))))
       order by r.scope_kind, r.scope_id, r.company_id <> $1, r.company_id, r.id
     ) ended order by created_at, id`,
    [companyId],
  );
  return rows;
}
