import { Migration } from '@mikro-orm/migrations';

/**
 * Tracking now takes a trip's last position by when it counts as reported, least(recorded_at,
 * received_at), since a phone's clock may stamp it minutes ahead of the server
 * (db/queries/tracking.ts). The unique (trip_id, recorded_at) index cannot serve that order, so
 * without this one every active trip's last position would sort all the positions of its trip.
 */
export class Migration20261204040000_trip_positions_report_order extends Migration {
  override up(): void {
    this.addSql(
      `create index trip_positions_last_report_idx
         on trip_positions (trip_id, (least(recorded_at, received_at)) desc, recorded_at desc)`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists trip_positions_last_report_idx');
  }
}
