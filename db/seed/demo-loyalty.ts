import type { PoolClient } from 'pg';
import { adjustPointsWithin, ensureAccount } from '../writes/loyalty/index.js';
import { DEMO_COMPANIES, demoCompany, demoUuid, type DemoCompanyIdentity } from './demo-identities.js';

/**
 * Loyalty programs of the demo companies: every company gets a program (1 point per 100 SYP,
 * 200 referral points), three tiers (Bronze 0 / Silver 1 000 at 125% / Gold 5 000 at 150%) and a
 * reward catalogue covering each case the voucher rules know: a percent discount with a cap, a
 * fixed discount with a minimum, a free trip, a route-restricted discount, a weekend-only
 * discount and a merchandise reward that cannot be redeemed online. The demo travellers start with
 * points: the production traveller in two companies, the internal and demo personas in the one
 * company their scope shows. Idempotent: stable ids and "on conflict do nothing"; the starting
 * balance is credited once (a rerun finds its transaction).
 */

const TIERS = [
  { key: 'bronze', nameAr: 'برونزي', nameEn: 'Bronze', min: 0, multiplier: 100 },
  { key: 'silver', nameAr: 'فضي', nameEn: 'Silver', min: 1000, multiplier: 125 },
  { key: 'gold', nameAr: 'ذهبي', nameEn: 'Gold', min: 5000, multiplier: 150 },
];

interface DemoReward {
  key: string;
  code: string;
  nameAr: string;
  nameEn: string;
  type: string;
  pointsCost: number;
  discountPercent?: number;
  discountAmount?: number;
  maxDiscount?: number;
  freeSeats?: number;
  minSubtotal?: number;
  allowedDays?: number[];
  /** Restricted to the company's first route (by id). */
  oneRoute?: boolean;
}

const REWARDS: DemoReward[] = [
  {
    key: 'save10',
    code: 'SAVE10',
    nameAr: 'خصم ١٠٪',
    nameEn: '10% off (up to 5,000 SYP)',
    type: 'discount',
    pointsCost: 300,
    discountPercent: 10,
    maxDiscount: 5000,
  },
  {
    key: 'minus5000',
    code: 'MINUS5000',
    nameAr: 'خصم ٥٠٠٠ ل.س',
    nameEn: '5,000 SYP off bookings from 40,000 SYP',
    type: 'discount',
    pointsCost: 500,
    discountAmount: 5000,
    minSubtotal: 40_000,
  },
  {
    key: 'free-seat',
    code: 'FREESEAT',
    nameAr: 'مقعد مجاني',
    nameEn: 'One free seat',
    type: 'free_trip',
    pointsCost: 2000,
    freeSeats: 1,
  },
  {
    key: 'route20',
    code: 'ROUTE20',
    nameAr: 'خصم ٢٠٪ على خط واحد',
    nameEn: '20% off on one route',
    type: 'discount',
    pointsCost: 400,
    discountPercent: 20,
    oneRoute: true,
  },
  {
    key: 'weekend15',
    code: 'WEEKEND15',
    nameAr: 'خصم ١٥٪ في عطلة نهاية الأسبوع',
    nameEn: '15% off Friday and Saturday departures',
    type: 'discount',
    pointsCost: 350,
    discountPercent: 15,
    allowedDays: [5, 6],
  },
  {
    key: 'mug',
    code: 'MUG',
    nameAr: 'كوب الشركة',
    nameEn: 'Company travel mug (at the office)',
    type: 'merchandise',
    pointsCost: 800,
  },
];

/** Starting balances: [traveller phone, company key, points]. */
const STARTING_BALANCES: [string, string, number][] = [
  ['+963900000001', 'qadmous', 2500],
  ['+963900000001', 'ahliah', 600],
  ['+963900000002', 'qa', 1500],
  ['+963900000003', 'demo', 1500],
];

const STARTING_NOTE = 'demo starting balance';

export async function seedDemoLoyalty(client: PoolClient): Promise<void> {
  for (const company of DEMO_COMPANIES) {
    await seedProgram(client, company);
  }
  for (const [phone, companyKey, points] of STARTING_BALANCES) {
    await seedStartingBalance(client, phone, demoCompany(companyKey).id, points);
  }
}

async function seedProgram(client: PoolClient, company: DemoCompanyIdentity): Promise<void> {
  await client.query(
    `insert into loyalty_programs (company_id, name_ar, name_en, points_per_100, referral_points)
     values ($1, $2, $3, 1, 200) on conflict (company_id) do nothing`,
    [company.id, `برنامج ولاء ${company.nameAr}`, `${company.nameEn} Rewards`],
  );
  for (const tier of TIERS) {
    await client.query(
      `insert into loyalty_tiers (id, company_id, name_ar, name_en, min_lifetime_points, multiplier_percent)
       values ($1, $2, $3, $4, $5, $6) on conflict do nothing`,
      [
        demoUuid('loyalty-tier', company.id, tier.key),
        company.id,
        tier.nameAr,
        tier.nameEn,
        tier.min,
        tier.multiplier,
      ],
    );
  }
  const [firstRoute] = (
    await client.query<{ id: string }>(`select id from routes where company_id = $1 order by id limit 1`, [
      company.id,
    ])
  ).rows;
  for (const reward of REWARDS) {
    if (reward.oneRoute && !firstRoute) continue;
    await client.query(
      `insert into loyalty_rewards (id, company_id, code, name_ar, name_en, type, discount_percent, discount_amount,
                                    max_discount, free_seats, points_cost, min_subtotal, route_ids, allowed_days)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::uuid[], $14::int[])
       on conflict do nothing`,
      [
        demoUuid('loyalty-reward', company.id, reward.key),
        company.id,
        reward.code,
        reward.nameAr,
        reward.nameEn,
        reward.type,
        reward.discountPercent ?? null,
        reward.discountAmount ?? null,
        reward.maxDiscount ?? null,
        reward.freeSeats ?? null,
        reward.pointsCost,
        reward.minSubtotal ?? null,
        reward.oneRoute ? [firstRoute!.id] : [],
        reward.allowedDays ?? [],
      ],
    );
  }
}

async function seedStartingBalance(
  client: PoolClient,
  phone: string,
  companyId: string,
  points: number,
): Promise<void> {
  const [user] = (await client.query<{ id: string }>(`select id from users where phone = $1`, [phone])).rows;
  if (!user) return;
  const accountId = await ensureAccount(client, companyId, user.id);
  const { rows } = await client.query<{ credited: boolean }>(
    `select exists (select from loyalty_transactions where account_id = $1 and kind = 'ADJUST' and note = $2)
       as credited`,
    [accountId, STARTING_NOTE],
  );
  if (!rows[0]?.credited) await adjustPointsWithin(client, { accountId, points, note: STARTING_NOTE });
}
