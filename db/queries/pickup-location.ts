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
