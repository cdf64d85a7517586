/**
 * The live-allocation rule shared by every availability read: a seat is taken on [board, alight)
 * by a CONFIRMED allocation or by a HELD one whose hold has not expired. Expired holds count as
 * free here even before a sweeper releases them.
 */
export const LIVE_ALLOCATION = `(a.status = 'CONFIRMED' or (a.status = 'HELD' and (a.expires_at is null or a.expires_at > now())))`;

/** Trip statuses a traveller may still book. */
export const BOOKABLE_TRIP_STATUSES = ['SCHEDULED', 'BOARDING', 'DELAYED'] as const;
export const BOOKABLE_TRIP_SQL = `(t.status in ('SCHEDULED', 'BOARDING', 'DELAYED'))`;
const BOOKABLE = new Set<string>(BOOKABLE_TRIP_STATUSES);

/**
 * The VIP fare `priceVip` of trip `tripId` as travellers are offered it: none when the trip's bus has
 * no VIP-class seat on its active layout, where a quote refuses a VIP_SEAT as not sold (domain
 * refuseLegResources) and every seat is sold at the standard fare.
 */
export const offeredVipFareSql = (tripId: string, priceVip: string) =>
  `case when ${priceVip} is null then null
        when exists (select 1 from trips vt
                     join bus_layouts vl on vl.bus_id = vt.bus_id and vl.status = 'active'
                     join layout_seats vs on vs.layout_id = vl.id and vs.seat_class = 'VIP'
                     where vt.id = ${tripId}) then ${priceVip} end`;

/** Whether a trip in `status` may still be booked (the same rule as BOOKABLE_TRIP_SQL). */
export function isBookableStatus(status: string): boolean {
  return BOOKABLE.has(status);
}

/**
 * SQL expression: seats of trip `tripExpr` taken somewhere on the interval [boardExpr, alightExpr).
 * Subtract from trips.seats_total for the free count.
 */
export function takenSeatsSql(tripExpr: string, boardExpr: string, alightExpr: string): string {
  return `(select count(distinct a.seat_id)::int from seat_allocations a
           where a.trip_id = ${tripExpr} and ${LIVE_ALLOCATION}
             and a.board_sequence < ${alightExpr} and a.alight_sequence > ${boardExpr})`;
}
