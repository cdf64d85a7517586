import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard's trip list without a date pages through a company's whole history, latest
 * departure first, ties by id (db/queries/planning-trips.ts `listPlanningTrips`). No index gave
 * that order, so every page read and sorted all the company's trips. This one holds the order
 * itself and, with the columns the list filters on, lets a page pick its ids and the status
 * counters count the selection from the index alone.
 */
export class Migration20261206030000_trips_company_departure_index extends Migration {
  override up(): void {
    this.addSql(
      `create index trips_company_departure_idx on trips (company_id, departure_at desc, id)
         include (status, route_id, bus_id)`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists trips_company_departure_idx');
  }
}
