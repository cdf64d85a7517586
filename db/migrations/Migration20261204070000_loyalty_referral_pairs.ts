import { Migration } from '@mikro-orm/migrations';

/**
 * One referral per pair of accounts, whichever way round: two travellers who enter each other's
 * code would each earn the referrer's and the referee's bonus from one pair of first trips. The
 * index also decides two such referrals sent at once: the second waits for the first and fails.
 */
export class Migration20261204070000_loyalty_referral_pairs extends Migration {
  override up(): void {
    this.addSql(`create unique index loyalty_referrals_pair_key on loyalty_referrals
      (company_id, least(referrer_account_id, referee_account_id), greatest(referrer_account_id, referee_account_id))`);
  }

  override down(): void {
    this.addSql(`drop index loyalty_referrals_pair_key`);
  }
}
