import type { Database } from '../../db/orm.js';
import { companyWithHistory, listCompanies, type CompanyFilter } from '../../db/queries/admin-companies.js';
import type { AdminActor } from '../../db/writes/acting-admin.js';
import type { AuditActor } from '../../db/writes/audit.js';
import { actOnCompany, type PendingRequest } from '../../db/writes/company-moderation.js';
import { suspensionDecisionKey, type CompanyAction } from '../../domain/company-moderation.js';
import { FAILURE_REASONS } from '../../domain/journey-confirmation.js';
import { notFound, Refusal } from '../http/errors.js';
import { decideRequest, type DecisionDeps } from './company-decision.js';
import { filterShown, readOneRecorded, readPageRecorded } from './recorded-reads.js';

/**
 * Companies as administrators see and act on them. Reads are recorded in the audit log
 * (companies.list, companies.read); each action is one transaction with its history and audit
 * rows (db/writes/company-moderation.ts).
 *
 * A suspension also ends, explicitly, every journey (or order) still waiting for decisions with a
 * leg on the company's trips: through the company's own request still pending, else (its leg
 * confirmed automatically, or it approved) through one of the other companies' pending requests
 * (db/writes/company-moderation.ts). Each is cancelled as a decision (./company-decision.ts
 * `decideRequest`: a platform REJECT with failure_reason COMPANY_SUSPENDED, request CANCELLED with
 * reason COMPANY_SUSPENDED and no decided_by (the administrator's words are for the suspended
 * company's OWNER, not for every role of every company on the journey), the whole scope cancelled,
 * the journey-confirmation workflow told), so the other companies stop waiting and the
 * traveller's seats are released at once instead of being held until the deadline (the last approval of such a scope is refused meanwhile, 409 TRIP_NOT_BOOKABLE). It runs
 * after the suspension has committed: the suspension is in force whatever happens next; a request
 * that cannot be ended now (its database write failed) keeps its deadline, and the suspended
 * company cannot approve it meanwhile (db/writes/journeys/decide.ts). Each cancellation checks in
 * its transaction that the company is still suspended: once an unsuspension has committed, the
 * requests not yet ended stay pending (leftToDeadline).
 */
export type CompanyModerationDeps = DecisionDeps;

/** A page of companies; the read is recorded (companies.list) with the filter used. */
export function listCompaniesRecorded(db: Database, audit: AuditActor, filter: CompanyFilter) {
  const entry = { ...audit, action: 'companies.list', targetKind: 'company' };
  const shown = filterShown(filter, ['search', 'status', 'verified', 'scope']);
  return readPageRecorded(db, entry, shown, filter, (sql) => listCompanies(sql, filter));
}

/** One company with its history; 404 COMPANY_NOT_FOUND (no audit row) when there is none. */
export function readCompanyRecorded(db: Database, audit: AuditActor, companyId: string) {
  const entry = { ...audit, action: 'companies.read', targetKind: 'company', targetId: companyId };
  return readOneRecorded(db, entry, (sql) => companyWithHistory(sql, companyId), companyNotFound);
}

const companyNotFound = () => notFound('COMPANY_NOT_FOUND', 'No company has this id');

export interface EndedRequests {
  cancelled: string[];
  /** Decided or expired meanwhile: nothing left to end. */
  alreadyClosed: string[];
  /** Not ended (their write failed, or the company was unsuspended meanwhile); they end at their deadline. */
  leftToDeadline: string[];
}

/** Applies the action; a suspension then ends the journey requests waiting with a leg on the company. */
export async function actOnCompanyAsAdmin(
  deps: CompanyModerationDeps,
  audit: AdminActor,
  input: { companyId: string; action: CompanyAction; reason: string },
) {
  const outcome = await actOnCompany(deps.db, { ...input, adminId: audit.actorId }, audit);
  if (!outcome) throw companyNotFound();
  const endedRequests =
    input.action === 'SUSPEND'
      ? await endPendingRequests(deps, input.companyId, audit, outcome.pendingRequests)
      : null;
  return { ...outcome, endedRequests };
}

async function endPendingRequests(
  deps: CompanyModerationDeps,
  companyId: string,
  audit: AdminActor,
  pending: PendingRequest[],
): Promise<EndedRequests> {
  const ended: EndedRequests = { cancelled: [], alreadyClosed: [], leftToDeadline: [] };
  for (const [index, request] of pending.entries()) {
    try {
      await decideRequest(
        deps,
        { kind: request.scope_kind, id: request.scope_id },
        {
          companyId: request.company_id,
          ...(request.company_id === companyId ? {} : { suspendedCompanyId: companyId }),
          decision: 'REJECT',
          actorId: audit.actorId,
          decisionKey: suspensionDecisionKey(request.id, companyId),
          failureReason: FAILURE_REASONS.companySuspended,
        },
      );
      ended.cancelled.push(request.id);
    } catch (error) {
      if (error instanceof Refusal && error.code === 'COMPANY_NOT_SUSPENDED') {
        // Unsuspended since: this request and the rest stay pending, to the company's decision or their deadline.
        ended.leftToDeadline.push(...pending.slice(index).map((left) => left.id));
        break;
      }
      if (error instanceof Refusal && error.code === 'JOURNEY_CONFIRMATION_STATE_CONFLICT') {
        ended.alreadyClosed.push(request.id);
      } else {
        deps.logger.error(
          { requestId: audit.requestId, err: error, request: request.id },
          'suspension: request left to its deadline',
        );
        ended.leftToDeadline.push(request.id);
      }
    }
  }
  return ended;
}
