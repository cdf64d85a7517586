/**
 * pickupLocation of trip results (SPEC "Trip pickup location"): built from the stop where the
 * traveller is picked up. Clients must never replace it with city coordinates.
 */
export interface PickupLocation {
  id: string;
  name: string;
  nameEn: string;
  address: string;
  addressEn: string;
  latitude: number;
  longitude: number;
  directions: string;
  directionsEn: string;
}

/** Columns for a stops row `p` under the prefix pickup_ (also the legacy flat fields' source). */
export const PICKUP_COLUMNS = `p.id as pickup_id, p.name_ar as pickup_name, p.name_en as pickup_name_en,
  p.address_ar as pickup_address, p.address_en as pickup_address_en, p.latitude as pickup_latitude,
  p.longitude as pickup_longitude, p.directions_ar as pickup_directions, p.directions_en as pickup_directions_en`;

/**
 * The id of the stop where a traveller boarding trip `trip` at the stop call `board` is picked up
 * (SPEC "Trip pickup location"; aliases of a trips row and a trip_stop_calls row):
 * - the trip's pickup stop when the boarding call is at it;
 * - a pickup stop the trip does not call at (a company's own point) when the boarding call is the
 *   trip's first call in that stop's city: the bus picks up there before going on;
 * - otherwise the boarding stop itself. A pickup stop the bus has already left, or one it reaches
 *   after the traveller boarded, is never where the traveller waits.
 * With no boarding call (`board`.id null: a booking without a journey leg), the trip's pickup stop.
 */
export function pickupStopIdSql(trip: string, board: string): string {
  return `case
    when ${board}.id is null or ${board}.stop_id = ${trip}.pickup_stop_id then ${trip}.pickup_stop_id
    when not exists (select 1 from trip_stop_calls pc where pc.trip_id = ${trip}.id and pc.stop_id = ${trip}.pickup_stop_id)
      and exists (select 1 from stops ps where ps.id = ${trip}.pickup_stop_id and ps.city_id = ${board}.city_id)
      and not exists (select 1 from trip_stop_calls ec
                      where ec.trip_id = ${trip}.id and ec.city_id = ${board}.city_id and ec.sequence < ${board}.sequence)
      then ${trip}.pickup_stop_id
    else ${board}.stop_id end`;
}

/** The columns PICKUP_COLUMNS selects, as pg returns them. */
export interface PickupRow {
  pickup_id: string;
  pickup_name: string;
  pickup_name_en: string;
  pickup_address: string;
  pickup_address_en: string;
  pickup_latitude: number;
  pickup_longitude: number;
  pickup_directions: string;
  pickup_directions_en: string;
}

export function toPickupLocation(row: PickupRow): PickupLocation {
  return {
    id: row.pickup_id,
    name: row.pickup_name,
    nameEn: row.pickup_name_en,
    address: row.pickup_address,
    addressEn: row.pickup_address_en,
    latitude: row.pickup_latitude,
    longitude: row.pickup_longitude,
    directions: row.pickup_directions,
    directionsEn: row.pickup_directions_en,
  };
}

/** The flat pickup_* fields GET /trips keeps for migrated mobile clients. */
export function flatPickupFields(location: PickupLocation) {
  return {
    pickup_location_id: location.id,
    pickup_name: location.name,
    pickup_name_en: location.nameEn,
    pickup_address: location.address,
    pickup_address_en: location.addressEn,
    pickup_latitude: location.latitude,
    pickup_longitude: location.longitude,
    pickup_directions: location.directions,
    pickup_directions_en: location.directionsEn,
  };
}
