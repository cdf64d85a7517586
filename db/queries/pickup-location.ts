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

export function toPickupLocation(row: Record<string, unknown>): PickupLocation {
  return {
    id: row.pickup_id as string,
    name: row.pickup_name as string,
    nameEn: row.pickup_name_en as string,
    address: row.pickup_address as string,
    addressEn: row.pickup_address_en as string,
    latitude: Number(row.pickup_latitude),
    longitude: Number(row.pickup_longitude),
    directions: row.pickup_directions as string,
    directionsEn: row.pickup_directions_en as string,
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
