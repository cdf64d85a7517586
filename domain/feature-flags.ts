/**
 * The feature flags the platform reads, each with what it switches and its value until an
 * operator sets one (GET/PATCH /admin/api/feature-flags). A flag the code does not read is no
 * flag: the catalogue is the list an operator can change.
 */
export interface FeatureFlagDefinition {
  description: string;
  /** The value while no operator has set one. */
  defaultEnabled: boolean;
}

export const FEATURE_FLAGS = {
  'waitlist.signup': {
    description:
      'Accept pre-launch waitlist sign-ups (POST /api/waitlist); off answers 503 FEATURE_DISABLED, which uses up none of the IP limit',
    defaultEnabled: true,
  },
  'support.traveller_tickets': {
    description:
      'Travellers may open support tickets about their bookings and write on their tickets (POST /api/support-tickets, ' +
      'POST /api/support-tickets/{id}/messages); off answers both 503 FEATURE_DISABLED, which uses up none of the ' +
      "traveller's hourly limit (reading their tickets stays open)",
    defaultEnabled: true,
  },
} as const satisfies Record<string, FeatureFlagDefinition>;

export type FeatureFlagKey = keyof typeof FEATURE_FLAGS;

export const FEATURE_FLAG_KEYS = Object.keys(FEATURE_FLAGS) as FeatureFlagKey[];

export function isFeatureFlagKey(key: string): key is FeatureFlagKey {
  return Object.hasOwn(FEATURE_FLAGS, key);
}

/** A flag's value: the one an operator set, else its default. */
export function flagValue(key: FeatureFlagKey, stored: ReadonlyMap<string, boolean>): boolean {
  return stored.get(key) ?? FEATURE_FLAGS[key].defaultEnabled;
}
