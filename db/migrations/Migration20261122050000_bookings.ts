import { Migration } from '@mikro-orm/migrations';

/**
 * Bookings made through POST /bookings and POST /bookings/round-trip (SPEC "Booking creation
 * payload"). They are stored the modern way: a journey without a quote (origin BOOKING_API), its
 * legs and signed tickets, and the compatibility bookings row clients use. A seat lock is a
 * hold_batches row of scope_kind SEAT_LOCK (its id is the seat_lock_session_id) with HELD
 * allocations of owner_kind SEAT_LOCK; the tables of the journeys migration already allow both.
 */
export class Migration20261122050000_bookings extends Migration {
  override up(): void {
    this.addSql(`alter table journeys alter column quote_id drop not null`);
    this.addSql(`alter table journeys add column origin text not null default 'JOURNEY_API'
      check (origin in ('JOURNEY_API', 'BOOKING_API'))`);
    this.addSql(`alter table journeys add constraint journeys_quote_of_journey_api
      check (origin = 'BOOKING_API' or quote_id is not null)`);

    // subtotal - discount = total_price. Rows written without a subtotal (the journey confirm
    // knows no voucher) get total_price + discount, so the column is never empty.
    this.addSql(`alter table bookings add column subtotal bigint`);
    this.addSql(`update bookings set subtotal = total_price + discount`);
    this.addSql(`create function bookings_default_subtotal() returns trigger language plpgsql as $$
      begin
        if new.subtotal is null then new.subtotal := new.total_price + new.discount; end if;
        return new;
      end $$`);
    this.addSql(`create trigger bookings_default_subtotal before insert on bookings
      for each row execute function bookings_default_subtotal()`);
    this.addSql(`alter table bookings alter column subtotal set not null`);
    this.addSql(`alter table bookings add constraint bookings_amounts_valid
      check (subtotal >= 0 and discount >= 0 and discount <= subtotal)`);
    // The voucher (loyalty_redemptions.id) that paid the discount; no foreign key so the
    // bookings and loyalty migrations stay independent.
    this.addSql(`alter table bookings add column reward_redemption_id uuid`);
    // One booking per seat lock: a retry with the same lock finds the booking it made.
    this.addSql(`alter table bookings add column seat_lock_session_id uuid unique`);
  }

  override down(): void {
    this.addSql(`alter table bookings drop column if exists seat_lock_session_id`);
    this.addSql(`alter table bookings drop column if exists reward_redemption_id`);
    this.addSql(`alter table bookings drop constraint if exists bookings_amounts_valid`);
    this.addSql(`drop trigger if exists bookings_default_subtotal on bookings`);
    this.addSql(`drop function if exists bookings_default_subtotal()`);
    this.addSql(`alter table bookings drop column if exists subtotal`);
    this.addSql(`alter table journeys drop constraint if exists journeys_quote_of_journey_api`);
    this.addSql(`alter table journeys drop column if exists origin`);
    this.addSql(`alter table journeys alter column quote_id set not null`);
  }
}
