import { createHash } from 'node:crypto';
import type { InventoryScope } from '../../domain/inventory-scope.js';

/**
 * The stable identities of the demo world (ARCHITECTURE "Demo identities"). Outside checks and
 * `npm run --silent demo:accounts` rely on these never changing between runs or machines:
 * company ids are fixed literals, every other seeded row gets an id derived from a stable key.
 * Development data only; nothing here exists in production.
 */

/** Namespace of every derived demo id (a UUID-v5-style name hash, see demoUuid). */
const DEMO_NAMESPACE = Buffer.from('5eed0000000040008000000000000000', 'hex');

/** A deterministic UUID (version 5 layout: SHA-1 of namespace + name) for a demo row's key. */
export function demoUuid(...key: string[]): string {
  const hash = createHash('sha1').update(DEMO_NAMESPACE).update(key.join('/')).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type DemoCompanyScope = 'PRODUCTION' | 'INTERNAL' | 'DEMO';
export type ConfirmationMode = 'AUTO_CONFIRM' | 'MANUAL_CONFIRM';

export interface DemoCompanyIdentity {
  /** Stable key the seed's operating plan refers to. */
  key: string;
  id: string;
  nameEn: string;
  nameAr: string;
  slug: string;
  scope: DemoCompanyScope;
  status: 'ACTIVE' | 'SUSPENDED';
  published: boolean;
  verified: boolean;
  phone: string;
  email: string;
  /**
   * Booking confirmation the journeys issue applies: the first production company confirms
   * manually so the decision flow can be tried on demo data; everyone else confirms at once.
   */
  confirmation: { mode: ConfirmationMode; decisionWindowMinutes: number | null };
}

const AUTO = { mode: 'AUTO_CONFIRM', decisionWindowMinutes: null } as const;

export const DEMO_COMPANIES: readonly DemoCompanyIdentity[] = [
  {
    key: 'qadmous',
    id: '5eed0000-0000-4000-8000-000000000001',
    nameEn: 'Al-Qadmous Transport',
    nameAr: 'القدموس للنقل',
    slug: 'al-qadmous',
    scope: 'PRODUCTION',
    status: 'ACTIVE',
    published: true,
    verified: true,
    phone: '+963112210001',
    email: 'bookings@qadmous.example',
    confirmation: { mode: 'MANUAL_CONFIRM', decisionWindowMinutes: 15 },
  },
  {
    key: 'ahliah',
    id: '5eed0000-0000-4000-8000-000000000002',
    nameEn: 'Al-Ahliah Transport',
    nameAr: 'الأهلية للنقل',
    slug: 'al-ahliah',
    scope: 'PRODUCTION',
    status: 'ACTIVE',
    published: true,
    verified: true,
    phone: '+963212260002',
    email: 'bookings@ahliah.example',
    confirmation: AUTO,
  },
  {
    key: 'zeinobia',
    id: '5eed0000-0000-4000-8000-000000000003',
    nameEn: 'Zeinobia Travel',
    nameAr: 'زنوبيا للسفر',
    slug: 'zeinobia',
    scope: 'PRODUCTION',
    status: 'ACTIVE',
    published: true,
    verified: true,
    phone: '+963312470003',
    email: 'bookings@zeinobia.example',
    confirmation: AUTO,
  },
  {
    key: 'sahel',
    id: '5eed0000-0000-4000-8000-000000000004',
    nameEn: 'Al-Sahel Coaches',
    nameAr: 'الساحل للنقل السياحي',
    slug: 'al-sahel',
    scope: 'PRODUCTION',
    status: 'ACTIVE',
    published: true,
    verified: true,
    phone: '+963414550004',
    email: 'bookings@sahel.example',
    confirmation: AUTO,
  },
  {
    key: 'qa',
    id: '5eed0000-0000-4000-8000-000000000005',
    nameEn: 'Internal QA Lines',
    nameAr: 'خطوط الاختبار الداخلي',
    slug: 'internal-qa',
    scope: 'INTERNAL',
    status: 'ACTIVE',
    published: false,
    verified: true,
    phone: '+963900000100',
    email: 'qa@busbooking.example',
    confirmation: AUTO,
  },
  {
    key: 'demo',
    id: '5eed0000-0000-4000-8000-000000000006',
    nameEn: 'Yasmin Demo Travel',
    nameAr: 'ياسمين للسفر (تجريبي)',
    slug: 'yasmin-demo',
    scope: 'DEMO',
    status: 'ACTIVE',
    published: true,
    verified: true,
    phone: '+963900000200',
    email: 'demo@yasmin.example',
    confirmation: AUTO,
  },
  {
    key: 'furat',
    id: '5eed0000-0000-4000-8000-000000000007',
    nameEn: 'Al-Furat Transport',
    nameAr: 'الفرات للنقل',
    slug: 'al-furat',
    scope: 'PRODUCTION',
    status: 'SUSPENDED',
    published: true,
    verified: true,
    phone: '+963512230007',
    email: 'bookings@furat.example',
    confirmation: AUTO,
  },
  {
    key: 'orontes',
    id: '5eed0000-0000-4000-8000-000000000008',
    nameEn: 'Orontes Lines',
    nameAr: 'خطوط العاصي',
    slug: 'orontes-lines',
    scope: 'PRODUCTION',
    status: 'ACTIVE',
    published: false,
    verified: false,
    phone: '+963332510008',
    email: 'bookings@orontes.example',
    confirmation: AUTO,
  },
];

export function demoCompany(key: string): DemoCompanyIdentity {
  const company = DEMO_COMPANIES.find((candidate) => candidate.key === key);
  if (!company) throw new Error(`unknown demo company ${key}`);
  return company;
}

export const DEMO_COMPANY_ID = demoCompany('demo').id;
export const INTERNAL_QA_COMPANY_ID = demoCompany('qa').id;

export interface DemoTraveller {
  phone: string;
  scope: DemoCompanyScope;
  companyId?: string;
}

/** The reserved +963900 numbers: one traveller per inventory scope. */
export const DEMO_TRAVELLERS: readonly DemoTraveller[] = [
  { phone: '+963900000001', scope: 'PRODUCTION' },
  { phone: '+963900000002', scope: 'INTERNAL' },
  { phone: '+963900000003', scope: 'DEMO', companyId: DEMO_COMPANY_ID },
];

/** The inventory scope a demo traveller's token carries. */
export function demoTravellerScope(traveller: DemoTraveller): InventoryScope {
  if (traveller.scope === 'DEMO') return { kind: 'DEMO', companyId: traveller.companyId! };
  return { kind: traveller.scope };
}
