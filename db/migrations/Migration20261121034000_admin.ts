import { Migration } from '@mikro-orm/migrations';

/**
 * Administrator second factor and audit-log reads.
 *
 * An enrolment (or a change of authenticator) keeps its new secret apart until a code from it is
 * confirmed, so the secret in use keeps working meanwhile. totp_last_step is the last TOTP step
 * accepted: a code is good once.
 */
export class Migration20261121034000_admin extends Migration {
  override up(): void {
    this.addSql(`
      alter table admins
        add column totp_pending_secret text,
        add column totp_pending_expires_at timestamptz,
        add column totp_last_step bigint`);
    this.addSql(
      `create index admin_sessions_admin_idx on admin_sessions (admin_id) where revoked_at is null`,
    );
    this.addSql(`create index audit_log_action_idx on audit_log (action, created_at desc)`);
    this.addSql(`create index audit_log_target_idx on audit_log (target_id, created_at desc)`);
  }

  override down(): void {
    this.addSql('drop index if exists audit_log_target_idx');
    this.addSql('drop index if exists audit_log_action_idx');
    this.addSql('drop index if exists admin_sessions_admin_idx');
    this.addSql(`
      alter table admins
        drop column if exists totp_last_step,
        drop column if exists totp_pending_expires_at,
        drop column if exists totp_pending_secret`);
  }
}
