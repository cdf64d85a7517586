import { Migration } from '@mikro-orm/migrations';

/**
 * Since this release a bus imported before canonical layouts (buses.legacy_seat_map) gets a
 * generated active layout of its recorded capacity when a trip is first planned on it
 * (db/writes/planning/legacy-layout.ts, domain/layout-templates.ts legacyLayout). Trips planned on
 * such a bus before were offered to travellers but could sell no seat and never board: every seat
 * path reads the active layout. This gives each legacy bus without an active layout that has trips
 * still selling (capacity 1 to 156, what a generated layout holds) the same layout: STANDARD seats
 * "1".."N" in rows of 2+2 with an aisle (column 2) under the driver and door row, the last row filled
 * from the left; its seat projection; and its selling trips the seat count. Built here in SQL, so the
 * migration stays what it is whatever the generator becomes; test/api/dashboard/legacy-bus-layout.test.ts
 * checks both give the same document.
 */
export const LEGACY_BUS_LAYOUTS = `
  with legacy as (
    select b.id, b.capacity, (b.capacity + 3) / 4 as seat_rows from buses b
    where b.legacy_seat_map and b.capacity between 1 and 156
      and not exists (select 1 from bus_layouts l where l.bus_id = b.id and l.status = 'active')
      and exists (select 1 from trips t where t.bus_id = b.id and t.status in ('SCHEDULED', 'BOARDING', 'DELAYED'))
  ),
  cell (bus_id, y, ord, element) as (
    select id, 0, 0, jsonb_build_object('type', 'driver', 'x', 0, 'y', 0) from legacy
    union all
    select id, 0, 1, jsonb_build_object('type', 'door', 'x', 4, 'y', 0) from legacy
    union all
    select l.id, (n - 1) / 4 + 1, (n - 1) % 4, jsonb_build_object(
             'type', 'seat', 'x', (array[0, 1, 3, 4])[(n - 1) % 4 + 1], 'y', (n - 1) / 4 + 1,
             'seatId', format('d1-r%s-c%s', (n - 1) / 4 + 1, (array[1, 2, 4, 5])[(n - 1) % 4 + 1]),
             'seatNumber', n::text, 'seatClass', 'STANDARD')
    from legacy l cross join generate_series(1, l.capacity) n
    union all
    select l.id, r, 4, jsonb_build_object('type', 'aisle', 'x', 2, 'y', r)
    from legacy l cross join generate_series(1, l.seat_rows) r
  ),
  document as (
    select l.id as bus_id, l.capacity, jsonb_build_object(
             'schemaVersion', 1,
             'grid', jsonb_build_object('columns', 5, 'rows', l.seat_rows + 1, 'decks', 1),
             'elements', (select jsonb_agg(c.element || '{"width": 1, "height": 1, "rotation": 0, "deck": 1}'
                                           order by c.y, c.ord)
                          from cell c where c.bus_id = l.id)) as document
    from legacy l
  ),
  layout as (
    insert into bus_layouts (bus_id, version, status, validation_status, document, seat_count, activated_at)
    select d.bus_id, coalesce((select max(v.version) from bus_layouts v where v.bus_id = d.bus_id), 0) + 1,
           'active', 'valid', d.document, d.capacity, now()
    from document d
    returning id, document
  ),
  seat as (
    insert into layout_seats (layout_id, seat_id, seat_number, deck, seat_class)
    select l.id, e ->> 'seatId', e ->> 'seatNumber', 1, 'STANDARD'
    from layout l cross join jsonb_array_elements(l.document -> 'elements') e
    where e ->> 'type' = 'seat'
  )
  update trips t set seats_total = d.capacity from document d
  where t.bus_id = d.bus_id and t.status in ('SCHEDULED', 'BOARDING', 'DELAYED')`;

export class Migration20261206185000_legacy_bus_layouts extends Migration {
  override up(): void {
    this.addSql(LEGACY_BUS_LAYOUTS);
  }

  override down(): void {
    // The layouts stay: they are valid active layouts, which the code before this release sells as well.
  }
}
