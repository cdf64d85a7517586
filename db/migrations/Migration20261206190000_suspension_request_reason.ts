import { Migration } from '@mikro-orm/migrations';

/**
 * Since this release a confirmation request a company's suspension ended carries the reason
 * COMPANY_SUSPENDED and no decided_by (db/writes/journeys/decide.ts decisionRecord): every company of
 * the journey reads it, and the administrator's words are for the suspended company's OWNER only
 * (company_admin_actions, GET /dashboard/api/company/warnings). Requests ended before it held the
 * administrator's reason and id; they are told apart for sure by their decision key
 * (domain/company-moderation.ts suspensionDecisionKey: `<request>:<company>:SUSPENDED`).
 */
export const SUSPENSION_REQUESTS = `update confirmation_requests set reason = 'COMPANY_SUSPENDED', decided_by = null
  where status = 'CANCELLED' and decision_key like '%:SUSPENDED'
    and (reason is distinct from 'COMPANY_SUSPENDED' or decided_by is not null)`;

export class Migration20261206190000_suspension_request_reason extends Migration {
  override up(): void {
    this.addSql(SUSPENSION_REQUESTS);
  }

  override down(): void {
    // The administrator's words and id are not kept anywhere this row could take them back from.
  }
}
