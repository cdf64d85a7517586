import { z } from 'zod';
import { MAX_ROUND_TRIP_SUBTOTAL } from '../../domain/booking.js';
import { Pagination, Uuid } from '../http/schemas.js';
import { taggedOperations } from '../http/operation-docs.js';
import { DateTimeText, successWith } from '../http/answer-schemas.js';
import { answers } from '../http/operation-docs.js';
import { idempotencyKeyHeaders } from '../http/idempotency-key.js';

/**
 * OpenAPI of customer loyalty (loyalty.ts, SPEC "Payments and loyalty"): schemas and the rules
 * they document. Every company runs its own program: an account, its balance, rewards and
 * vouchers belong to one company and never merge with another's.
 */

const COMMON =
  'Needs a traveller session (401 AUTH_REQUIRED); web calls that change something send X-CSRF-Token (403 ' +
  'CSRF_TOKEN_INVALID), bearer calls need none. companyId must name a company with an active loyalty program in the ' +
  "caller's inventory scope (for regular accounts: an active, published company), else 404 LOYALTY_PROGRAM_NOT_FOUND. " +
  'Balances and rewards never cross companies.';

/** The reads that may open the caller's account in the chosen company's program (loyalty.ts `opensAccount`). */
const OPENS_ACCOUNT =
  'Web cookie callers send X-CSRF-Token on this read, which may open the company’s account (403 CSRF_TOKEN_INVALID ' +
  'without it: a page elsewhere cannot enrol you in a program whose company then sees your name and phone); bearer ' +
  'calls need none. A HEAD is 405 METHOD_NOT_ALLOWED (Allow: GET): it opens nothing.';

const EARNING_RULE =
  'Points are earned when a trip is completed: each booking of the trip in status COMPLETED or CHECKED_IN (not cancelled, ' +
  'no-show or refunded) earns floor(total_price / 100 × points_per_100 × tier multiplier_percent / 100) points for its ' +
  "owner in the trip company's program, once per booking. Lifetime points decide the tier (the highest min_lifetime_points " +
  'reached). A pending referral is rewarded on the referred traveller’s first completed trip: both get the program’s ' +
  'referral_points.';

export const CompanyQuery = z.object({ companyId: Uuid }).strict();

const Money = z.number().meta({ description: 'SYP, whole pounds' });
const Company = z.object({ id: Uuid, nameAr: z.string(), nameEn: z.string() });
const Program = z.object({
  nameAr: z.string(),
  nameEn: z.string(),
  pointsPer100: z.int().meta({ description: 'points earned per 100 SYP paid (before the tier multiplier)' }),
  referralPoints: z
    .int()
    .meta({ description: 'points each side gets when a referred traveller completes a first trip' }),
});
const Tier = z.object({
  id: Uuid,
  nameAr: z.string(),
  nameEn: z.string(),
  minLifetimePoints: z.int(),
  multiplierPercent: z.int().meta({ description: '100 = points as earned; 150 = half as many again' }),
});
const Account = z
  .object({
    id: Uuid,
    balance: z.int().meta({ description: 'points that can be spent; never negative' }),
    lifetimePoints: z.int().meta({ description: 'all points ever earned (decides the tier)' }),
    referralCode: z.string().meta({ description: 'your code in this program, to give to new travellers' }),
    tier: Tier.nullable(),
    nextTier: Tier.extend({ pointsNeeded: z.int() }).nullable(),
    createdAt: DateTimeText,
  })
  .meta({ id: 'LoyaltyAccount' });

const ProgramSummary = z
  .object({
    companyId: Uuid,
    company: Company,
    program: Program,
    hasAccount: z.boolean(),
    balance: z.int().nullable().meta({ description: 'null until the account is opened' }),
  })
  .meta({ id: 'LoyaltyProgramSummary' });

const AccountAnswer = z.union([
  successWith(z.object({ programs: z.array(ProgramSummary) })),
  successWith(z.object({ companyId: Uuid, company: Company, program: Program, account: Account })),
]);

const Reward = z
  .object({
    id: Uuid,
    code: z
      .string()
      .meta({ description: 'catalogue code to send to POST /loyalty/redeem (not a voucher code)' }),
    nameAr: z.string(),
    nameEn: z.string(),
    type: z.enum(['discount', 'free_trip']),
    pointsCost: z.int(),
    discountPercent: z.int().nullable(),
    discountAmount: Money.nullable(),
    maxDiscount: Money.nullable().meta({ description: 'cap of a percent discount' }),
    freeSeats: z.int().nullable().meta({ description: 'free_trip: seats covered on the cheapest trip' }),
    minSubtotal: Money.nullable(),
    routeIds: z.array(Uuid).meta({ description: 'empty: every route of the company' }),
    allowedDays: z.array(z.int()).meta({
      description: 'ISO weekdays (1 Monday .. 7 Sunday) of departure in Damascus; empty: every day',
    }),
    voucherValidDays: z.int(),
    remaining: z.int().nullable().meta({ description: 'redemptions left; null: unlimited' }),
  })
  .meta({ id: 'LoyaltyReward' });

const Transaction = z
  .object({
    id: Uuid,
    kind: z.enum(['EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS', 'VOUCHER_REFUND', 'EARN_REVERSAL']).meta({
      description:
        'ADJUST: a correction by the company; VOUCHER_REFUND: points of a withdrawn reward returned; ' +
        'EARN_REVERSAL: the points of a booking refunded in full taken back (never below a balance of 0: ' +
        'the note says how many were already spent; 0 points when nothing was left)',
    }),
    points: z.int().meta({ description: 'signed: negative for a redemption or a reversal' }),
    balanceAfter: z.int(),
    bookingId: Uuid.nullable(),
    redemptionId: Uuid.nullable(),
    redemptionCode: z.string().nullable(),
    note: z.string().nullable(),
    createdAt: DateTimeText,
  })
  .meta({ id: 'LoyaltyTransaction' });

export const TransactionsQuery = z.object({ companyId: Uuid, ...Pagination }).strict();

const ReferralData = z.object({
  companyId: Uuid,
  referralCode: z.string(),
  referredBy: z
    .object({ status: z.enum(['PENDING', 'REWARDED']), createdAt: DateTimeText })
    .nullable()
    .meta({ description: 'set when you were referred in this program' }),
  stats: z.object({
    referred: z.int(),
    rewarded: z.int(),
    pending: z.int(),
    pointsEarned: z.int().meta({ description: 'referral bonus points earned through people you referred' }),
  }),
});
const Referral = successWith(ReferralData);

export const ReferralBody = z
  .object({ companyId: Uuid, referralCode: z.string().trim().min(1).max(32) })
  .strict()
  .meta({ id: 'LoyaltyReferralRequest' });
const ReferralRecorded = successWith(
  z.object({ referral: z.object({ id: Uuid, status: z.literal('PENDING') }) }),
);

export const RedeemBody = z
  .object({ companyId: Uuid, rewardCode: z.string().trim().toUpperCase().min(1).max(64) })
  .strict()
  .meta({ id: 'LoyaltyRedeemRequest' });
/**
 * POST /loyalty/redeem's optional Idempotency-Key header: SPEC fixes the body, so a client that
 * retries a redeem whose answer it lost names the attempt here (the journey routes' key form).
 */
export const RedeemHeaders = idempotencyKeyHeaders(
  'client-chosen key, stored per traveller: a retry with the same key and body answers the voucher the first ' +
    'call made (201) instead of spending the points again',
);
const Redeemed = z.object({
  success: z.literal(true),
  redemption: z.object({
    id: Uuid,
    code: z.string().meta({ description: 'voucher code RWD-XXXXXXXX; the reward_code of POST /bookings' }),
    pointsUsed: z.int(),
    expiresAt: DateTimeText,
  }),
});

export const PreviewBody = z
  .object({
    redemptionCode: z.string().trim().min(1).max(64),
    // Up to what a round trip can cost: a subtotal the booking routes accept is never refused here.
    subtotal: z.int().min(0).max(MAX_ROUND_TRIP_SUBTOTAL),
    tripIds: z
      .array(Uuid)
      .min(1)
      .max(2)
      .refine((ids) => new Set(ids).size === ids.length, 'the two trips must differ')
      .meta({ uniqueItems: true, description: 'one trip, or outbound then return' }),
  })
  .strict()
  .meta({ id: 'LoyaltyPreviewRequest' });
const Preview = z.object({
  success: z.literal(true),
  valid: z.literal(true),
  redemptionCode: z.string(),
  discount: Money,
  finalTotal: Money,
});

const VOUCHER_RULES =
  'Voucher checks, in this order (the first failure answers 409 with its code): the voucher exists and is yours ' +
  '(LOYALTY_REDEMPTION_NOT_FOUND — also for a catalogue reward code, another traveller’s voucher or a cancelled ' +
  'voucher), not used ' +
  '(LOYALTY_REDEMPTION_USED), not expired (LOYALTY_REDEMPTION_EXPIRED), its reward is a discount or free_trip still offered ' +
  '(LOYALTY_REWARD_UNSUPPORTED), the reward is set up consistently (LOYALTY_REWARD_CONFIGURATION_INVALID), every trip is ' +
  'of the voucher’s company and, for a route-restricted reward, on one of its routes (LOYALTY_ROUTE_NOT_ELIGIBLE), every ' +
  'trip departs on an allowed weekday in Damascus (LOYALTY_DAY_NOT_ELIGIBLE), the subtotal reaches the minimum ' +
  '(LOYALTY_MINIMUM_NOT_MET, details.minSubtotal). Discount: a percent of the subtotal rounded down and capped by ' +
  'maxDiscount, a fixed amount, or for free_trip the fares of the freeSeats cheapest seats booked on the cheapest trip ' +
  '(each seat at its own fare: a standard seat before a VIP one); never more than the subtotal.';

const RewardsResponse = successWith(z.object({ companyId: Uuid, rewards: z.array(Reward) }));

const TransactionsResponse = successWith(
  z.object({
    companyId: Uuid,
    balance: z.int(),
    transactions: z.array(Transaction),
    total: z.int(),
    limit: z.int(),
    offset: z.int(),
  }),
);

export const AccountQuery = z.object({ companyId: Uuid.optional() }).strict();

const TAGS = ['Loyalty'];
const READ_REFUSALS = [400, 401, 404];
const WRITE_REFUSALS = [400, 401, 403, 404, 409];
/** A read that may open the caller's account: refused like a write without the CSRF header, and to a HEAD. */
const OPENING_READ_REFUSALS = [400, 401, 403, 404, 405];

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  getLoyaltyAccount: {
    summary: 'Loyalty programs, or your account in one company’s program',
    description:
      `${COMMON} Without companyId: the programs you can join (company, program, your balance when you have an account). ` +
      'With companyId: your account in that company’s program — opened on this first call — with balance, lifetime ' +
      `points, tier, next tier and your referral code. ${OPENS_ACCOUNT} ${EARNING_RULE}`,
    responses: answers(200, 'Programs, or one account', AccountAnswer, OPENING_READ_REFUSALS),
  },
  listLoyaltyRewards: {
    summary: 'Rewards you can redeem in one company’s program',
    description:
      `${COMMON} Lists only active rewards of type discount or free_trip of that company that are not sold out, cheapest ` +
      'first; other reward types (merchandise…) are given out by the company and are not listed.',
    responses: answers(200, 'Rewards', RewardsResponse, READ_REFUSALS),
  },
  listLoyaltyTransactions: {
    summary: 'Your points ledger in one company’s program, newest first',
    description:
      `${COMMON} limit 1..100 (default 20), offset ≥ 0; total counts all your transactions in the program. ` +
      `Opens your account in the program like GET /loyalty/account. ${OPENS_ACCOUNT}`,
    responses: answers(200, 'One page of transactions', TransactionsResponse, OPENING_READ_REFUSALS),
  },
  getLoyaltyReferral: {
    summary: 'Your referral code in one company’s program and how it has done',
    description:
      `${COMMON} Each traveller has one referral code per company (8 characters, no look-alike letters). A new traveller ` +
      'enters it with POST /loyalty/referral; when that traveller completes a first trip with the company, both get the ' +
      'program’s referralPoints. Opens your account in the program like GET /loyalty/account. ' +
      OPENS_ACCOUNT,
    responses: answers(200, 'Referral code and stats', Referral, OPENING_READ_REFUSALS),
  },
  useLoyaltyReferral: {
    summary: 'Say who referred you to a company',
    description:
      `${COMMON} Body companyId and referralCode (another traveller’s code in the same program). Records a PENDING ` +
      'referral (201); both travellers get referralPoints when you complete your first trip with the company. Refused: ' +
      'a code that does not exist in this company’s program (404 LOYALTY_REFERRAL_NOT_FOUND — also a code of another ' +
      'company, of a disabled account, or one whose empty account a phone merge removes at that moment), your own code (409 LOYALTY_REFERRAL_SELF), a second referral in the same ' +
      'program (409 LOYALTY_REFERRAL_ALREADY_USED), a traveller who already travelled with the company (checked in on ' +
      'one of its trips, completed or not: 409 LOYALTY_REFERRAL_NOT_NEW), the code of a traveller who entered yours (409 LOYALTY_REFERRAL_MUTUAL: one ' +
      'referral per pair of travellers, whichever way round; of two sent at once, the second is refused).',
    responses: answers(201, 'Referral recorded', ReferralRecorded, WRITE_REFUSALS),
  },
  redeemLoyaltyReward: {
    summary: 'Spend points on a reward and get a voucher',
    description:
      `${COMMON} Body companyId and rewardCode (the catalogue code from GET /loyalty/rewards). In one transaction: locks ` +
      'your account in that company, then the reward, checks it, deducts its pointsCost, counts the redemption, records ' +
      'a REDEEM transaction and creates the voucher (code RWD- + 8 characters, valid for the reward’s voucherValidDays). ' +
      'Concurrent redeems of one balance run one after another: the balance is never spent twice. Refused: unknown or ' +
      'inactive reward of this company (404 LOYALTY_REWARD_NOT_FOUND), a reward type that is not discount or free_trip ' +
      '(409 LOYALTY_REWARD_UNSUPPORTED), a reward set up inconsistently (409 LOYALTY_REWARD_CONFIGURATION_INVALID), ' +
      'a reward redeemed as often as the company allows (409 LOYALTY_REWARD_EXHAUSTED), too few points (409 ' +
      'LOYALTY_INSUFFICIENT_POINTS, details balance and pointsCost). Points of one company never pay for another’s reward. ' +
      'Idempotency-Key (optional header, 8 to 128 characters of A-Z a-z 0-9 _ -, else 400 VALIDATION_FAILED): a retry ' +
      'with the same key and body, even while the first call is still running, answers 201 with the voucher that call ' +
      'made and spends nothing more, also once the program is switched off or the company hidden since; the same key ' +
      'with another body is 409 IDEMPOTENCY_KEY_REUSED. Keys are kept per ' +
      'traveller; a refused redeem keeps nothing under its key, so its retry is judged afresh. Without the header every ' +
      'call redeems anew.',
    responses: answers(201, 'Voucher created', Redeemed, WRITE_REFUSALS),
  },
  previewLoyaltyVoucher: {
    summary: 'What a voucher would take off a purchase (consumes nothing)',
    description:
      'Needs a traveller session; web calls send X-CSRF-Token. Body redemptionCode (your voucher), subtotal (the price ' +
      'before discount, whole SYP) and tripIds (one trip, or outbound then return). A valid voucher answers 200 ' +
      `{valid: true, redemptionCode, discount, finalTotal}; a rejected one answers 409 with its LOYALTY_* code. ${VOUCHER_RULES} ` +
      'For two trips the subtotal is split over them in proportion to their base seat price; a free trip covers ' +
      'freeSeats seats at the base price of the cheaper trip. A trip outside your inventory scope is 404 TRIP_NOT_FOUND. ' +
      'The preview changes nothing; booking creation re-checks the voucher and its price is authoritative.',
    responses: answers(200, 'The voucher applies', Preview, WRITE_REFUSALS),
  },
});
