import type { PoolClient } from 'pg';
import { signInByPhoneWithin } from '../writes/phone-sign-in.js';
import { DEMO_TRAVELLERS, type DemoCompanyScope } from './demo-identities.js';

/**
 * The demo traveller accounts, created exactly as a first sign-in by code creates them (profile,
 * account and the persona's server-side app_metadata), so the reserved numbers already have an
 * account to sign in to. Idempotent: a rerun finds the accounts and only re-applies the metadata.
 */
const DEMO_TRAVELLER_NAMES: Record<DemoCompanyScope, string> = {
  PRODUCTION: 'Rami Demo Traveller',
  INTERNAL: 'Internal QA Traveller',
  DEMO: 'Yasmin Demo Persona',
};

export async function seedDemoTravellers(client: PoolClient): Promise<void> {
  for (const traveller of DEMO_TRAVELLERS) {
    await signInByPhoneWithin(client, {
      phone: traveller.phone,
      name: DEMO_TRAVELLER_NAMES[traveller.scope],
    });
  }
}
