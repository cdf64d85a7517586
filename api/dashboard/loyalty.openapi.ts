import { z } from 'zod';
import {
  MAX_ADJUSTMENT_POINTS,
  REWARD_CODE_PATTERN,
  REWARD_TYPES,
  type RewardType,
} from '../../domain/loyalty-admin.js';
import {
  ListSearch,
  Pagination,
  NAME_SEARCH,
  PHONE_SEARCH,
  PrintedProse,
  PrintedText,
  Uuid,
  textRule,
} from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { idempotencyKeyHeaders } from '../http/idempotency-key.js';
import { DateTimeText, IdText as Id, PaginationText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of the company's loyalty programme routes (loyalty.ts): schemas, rules and prose. */

const TAGS = ['Dashboard: loyalty programme'];
/** Travellers read these names (rewards, tiers, the programme): no control or bidirectional-override characters. */
const Name = PrintedText(1, 120);
const Money = z.int().min(1).max(1_000_000_000);
/** A programme's, tier's or reward's name in Arabic and English: as a body sets it, as answers show it. */
const BilingualName = { nameAr: Name, nameEn: Name };
const BilingualNameText = { nameAr: z.string(), nameEn: z.string() };

export const AccountsQuery = z
  .object({
    search: ListSearch(
      `part of the traveller's name or phone, or of the account's referral code; or ${PHONE_SEARCH}; ${NAME_SEARCH}`,
    ),
    ...Pagination,
  })
  .strict();

export const ProgramBody = z
  .object({
    ...BilingualName,
    active: z.boolean().meta({ description: 'false: travellers neither see it nor earn or redeem in it' }),
    pointsPer100: z
      .int()
      .min(0)
      .max(10_000)
      .meta({ description: 'points per 100 SYP paid for a trip completed while it applies' }),
    referralPoints: z.int().min(0).max(1_000_000),
  })
  .strict();

export const TierBody = z
  .object({
    ...BilingualName,
    minLifetimePoints: z.int().min(0).max(1_000_000_000).meta({ description: 'unique in the programme' }),
    multiplierPercent: z
      .int()
      .min(1)
      .max(1000)
      .meta({ description: 'points earned in this tier, in % of the base' }),
  })
  .strict();

const unique = <T>(items: T[]) => new Set(items).size === items.length;

const NOT_NULL = { not: { type: 'null' } };
/** JSON Schema: the field is sent and is not null. */
const given = (field: string) => ({ required: [field], properties: { [field]: NOT_NULL } });
const typeIs = (type: RewardType) => ({ type: { const: type } });

/**
 * The fields each reward type takes, as domain/loyalty-admin.ts rewardDefinitionRefusal checks them
 * (400 LOYALTY_REWARD_CONFIGURATION_INVALID), stated in the document: a discount has exactly one of
 * discountPercent and discountAmount, a free trip has freeSeats, merchandise has no voucher terms
 * (null or left out) and no routes.
 */
const REWARD_CONFIGURATION = {
  oneOf: [
    { properties: typeIs('discount'), oneOf: [given('discountPercent'), given('discountAmount')] },
    { required: ['freeSeats'], properties: { ...typeIs('free_trip'), freeSeats: NOT_NULL } },
    {
      properties: {
        ...typeIs('merchandise'),
        ...Object.fromEntries(
          ['discountPercent', 'discountAmount', 'maxDiscount', 'freeSeats', 'minSubtotal'].map((field) => [
            field,
            { type: 'null' },
          ]),
        ),
        routeIds: { maxItems: 0 },
      },
    },
  ],
};

export const RewardBody = z
  .object({
    code: z
      .string()
      .trim()
      .toUpperCase()
      .regex(REWARD_CODE_PATTERN, 'must be 2 to 32 letters, digits, - or _, and not start with RWD-')
      .meta({ description: 'the catalogue code travellers redeem with; unique in the programme' }),
    ...BilingualName,
    type: z.enum(REWARD_TYPES),
    discountPercent: z.int().min(1).max(100).nullable().default(null),
    discountAmount: Money.nullable().default(null),
    maxDiscount: Money.nullable().default(null),
    freeSeats: z.int().min(1).max(20).nullable().default(null),
    pointsCost: z.int().min(1).max(1_000_000),
    minSubtotal: z.int().min(0).max(1_000_000_000).nullable().default(null),
    routeIds: z
      .array(Uuid)
      .max(100)
      .refine(unique, 'must not name a route twice')
      .default([])
      .meta({ uniqueItems: true, description: 'routes the company runs; empty: every route of the company' }),
    allowedDays: z.array(z.int().min(1).max(7)).refine(unique, 'must not name a day twice').default([]).meta({
      uniqueItems: true,
      description: 'ISO weekdays of departure (1 Monday .. 7 Sunday, Damascus); empty: every day',
    }),
    voucherValidDays: z.int().min(1).max(365).default(30),
    active: z.boolean().default(true),
    maxRedemptions: z.int().min(1).max(10_000_000).nullable().default(null),
  })
  .strict()
  .meta(REWARD_CONFIGURATION);

export const AdjustBody = z
  .object({
    points: z
      .int()
      .min(-MAX_ADJUSTMENT_POINTS)
      .max(MAX_ADJUSTMENT_POINTS)
      .refine((points) => points !== 0, 'must not be 0')
      .meta({ description: 'added to the balance; negative takes points away; never 0', not: { const: 0 } }),
    // Staff read it in the ledger and the audit log, and it explains a change of a traveller's points:
    // prose as an administrator's reasons are, so no character that could make it read as another text.
    reason: PrintedProse(3, 500).meta({
      description: `why, kept in the ledger and the audit log; ${textRule(3, 500, 'prose')}`,
    }),
  })
  .strict();

/** The adjustment's optional Idempotency-Key header (api/http/idempotency-key.ts), kept per company. */
export const AdjustHeaders = idempotencyKeyHeaders(
  'client-chosen key, stored per company: a retry with the same key and body answers the adjustment the first call ' +
    'made (200) instead of moving the points again',
);

const Tier = z.object({
  id: Id,
  ...BilingualNameText,
  minLifetimePoints: z.int(),
  multiplierPercent: z.int(),
});
const Program = z.object({
  ...BilingualNameText,
  active: z.boolean(),
  pointsPer100: z.int(),
  referralPoints: z.int(),
  updatedAt: DateTimeText,
});
const Reward = z.object({
  id: Id,
  code: z.string(),
  ...BilingualNameText,
  type: z.string(),
  discountPercent: z.int().nullable(),
  discountAmount: z.number().nullable(),
  maxDiscount: z.number().nullable(),
  freeSeats: z.int().nullable(),
  minSubtotal: z.number().nullable(),
  routeIds: z.array(Id),
  allowedDays: z.array(z.int()),
  pointsCost: z.int(),
  voucherValidDays: z.int(),
  active: z.boolean(),
  maxRedemptions: z.int().nullable(),
  redemptionCount: z.int(),
  openVouchers: z.int().meta({ description: 'issued vouchers not used, cancelled or expired yet' }),
  updatedAt: DateTimeText,
});
const Account = z.object({
  id: Id,
  userId: Id,
  name: z.string().nullable(),
  phone: z.string().nullable(),
  balance: z.int(),
  lifetimePoints: z.int(),
  tier: z.object({ id: Id, ...BilingualNameText }).nullable(),
  referralCode: z.string(),
  createdAt: DateTimeText,
  updatedAt: DateTimeText,
});

const Overview = z.object({
  success: z.literal(true),
  data: z.object({
    program: Program.nullable().meta({ description: 'null until PUT /loyalty sets it up' }),
    tiers: z.array(Tier),
    rewards: z.array(Reward),
    accounts: z.array(Account),
  }),
  pagination: PaginationText,
});
const Adjusted = successWith(
  z.object({
    account: z.object({ id: Id, balance: z.int(), lifetimePoints: z.int() }),
    transaction: z.object({
      id: Id,
      kind: z.literal('ADJUST'),
      points: z.int(),
      balanceAfter: z.int(),
      reason: z.string(),
      actorStaffUserId: Id,
      createdAt: DateTimeText,
    }),
  }),
);
const Withdrawn = successWith(
  z.object({
    rewardId: Id,
    removed: z.boolean().meta({ description: 'true: never redeemed, deleted; false: archived' }),
    vouchersCancelled: z.int(),
    pointsReturned: z.int(),
  }),
);

const WRITES =
  'Needs role OWNER or ADMIN (403 ROLE_NOT_ALLOWED) of an active (403 COMPANY_SUSPENDED), verified (403 ' +
  'COMPANY_NOT_VERIFIED) company and X-CSRF-Token (403 CSRF_TOKEN_INVALID). The programme is always the one of the ' +
  "session's company: a body naming companyId, actorId, updatedBy or userId is 400 SESSION_FIELD_REFUSED; any other " +
  'unknown field or bad value is 400 VALIDATION_FAILED; either way nothing changes. Audited. ' +
  'The member is judged as they stand when the write is made, after any change committed while the request waited: ' +
  'signed out or deactivated 401 INVALID_CREDENTIAL, no longer of those roles 403 ROLE_NOT_ALLOWED, nothing changed.';
const NEEDS_PROGRAM = '409 LOYALTY_PROGRAM_NOT_FOUND until PUT /loyalty has set the programme up.';
const REWARD_RULES =
  'Types: discount (exactly one of discountPercent and discountAmount, maxDiscount optional), free_trip (freeSeats), ' +
  'both redeemed for RWD- vouchers; merchandise is handed out at the office and takes no voucher terms (else 400 ' +
  'LOYALTY_REWARD_CONFIGURATION_INVALID). routeIds must be routes the company runs (its own, active; else 422 ' +
  'LOYALTY_ROUTE_NOT_OWNED with details.routeIds). A code another reward of the programme has (withdrawn ones included) ' +
  'is 409 LOYALTY_REWARD_CODE_TAKEN. Omitted optional fields take their defaults.';

const CHANGE_REFUSALS = [400, 401, 403, 404, 409, 422];

export const docs = taggedOperations(TAGS, {
  getLoyaltyProgramme: {
    summary: "The company's loyalty programme, tiers, rewards and accounts",
    description:
      "The session company's programme terms (null until set up), its tiers, its reward catalogue (withdrawn rewards " +
      "left out) and one page of its travellers' accounts with their balances, highest balance first. search matches " +
      'part of the name (typed another way too: احمد finds أحمد), phone or referral code, or a phone number as ' +
      'sign-in reads it (0944 123 456 finds +963944123456); limit (default 20, at most 100) and offset page the accounts and ' +
      'pagination.total counts them. Needs role OWNER, ADMIN or ACCOUNTANT (403 ROLE_NOT_ALLOWED): balances are ' +
      'money-like and phone numbers personal.',
    responses: answers(200, 'The programme', Overview, [400, 401, 403]),
  },
  putLoyaltyProgramme: {
    summary: "Set up or change the programme's terms",
    description: `Creates the programme or replaces its terms. ${WRITES} (loyalty.program.update)`,
    responses: answers(200, 'The terms', successWith(Program), CHANGE_REFUSALS),
  },
  createLoyaltyReward: {
    summary: 'Add a reward to the catalogue',
    description: `${REWARD_RULES} ${NEEDS_PROGRAM} ${WRITES} (loyalty.reward.create)`,
    responses: answers(201, 'The reward', successWith(Reward), CHANGE_REFUSALS),
  },
  updateLoyaltyReward: {
    summary: 'Change a reward',
    description:
      `Replaces the reward's definition. Vouchers already issued keep the terms they were issued with; the change ` +
      'applies to vouchers redeemed from now on. maxRedemptions below the vouchers already issued is 409 ' +
      `LOYALTY_REWARD_LIMIT_BELOW_REDEEMED. Another company's or a withdrawn reward is 404 LOYALTY_REWARD_NOT_FOUND. ` +
      `${REWARD_RULES} ${WRITES} (loyalty.reward.update)`,
    responses: answers(200, 'The reward', successWith(Reward), CHANGE_REFUSALS),
  },
  deleteLoyaltyReward: {
    summary: 'Withdraw a reward',
    description:
      'A reward never redeemed is deleted (removed: true). One with vouchers is archived: it leaves the catalogue, ' +
      'no voucher of it is issued any more, its code stays taken, and each of its unused, unexpired vouchers is ' +
      'cancelled with its points returned to the traveller (a VOUCHER_REFUND ledger entry naming the company user and ' +
      'the reason; returned points do not count as points earned and stop at the balance limit of 2,147,483,647, the ' +
      "entry's reason saying how many did not fit: one full account never fails the withdrawal). Asking again for a " +
      'withdrawn reward returns what is left to return (nothing twice). 404 LOYALTY_REWARD_NOT_FOUND for another ' +
      `company's reward. ${WRITES} ` +
      '(loyalty.reward.withdraw or loyalty.reward.delete)',
    responses: answers(200, 'What was done', Withdrawn, [400, 401, 403, 404]),
  },
  createLoyaltyTier: {
    summary: 'Add a tier',
    description:
      'A tier starts at minLifetimePoints (unique in the programme, else 409 LOYALTY_TIER_THRESHOLD_TAKEN); travellers ' +
      'earn multiplierPercent of the base points in it. Every account is moved to the tier its lifetime points reach. ' +
      `${NEEDS_PROGRAM} ${WRITES} (loyalty.tier.create)`,
    responses: answers(201, 'The tier', successWith(Tier), CHANGE_REFUSALS),
  },
  updateLoyaltyTier: {
    summary: 'Change a tier',
    description:
      "Replaces the tier; every account is moved to the tier its lifetime points reach. Another company's tier is 404 " +
      `LOYALTY_TIER_NOT_FOUND; a threshold another tier has is 409 LOYALTY_TIER_THRESHOLD_TAKEN. ${WRITES} (loyalty.tier.update)`,
    responses: answers(200, 'The tier', successWith(Tier), CHANGE_REFUSALS),
  },
  adjustLoyaltyAccount: {
    summary: "Add or take points on a traveller's account",
    description:
      'One ledger transaction (kind ADJUST) with the company user as actor and the reason, in a transaction that locks ' +
      'the account row: concurrent adjustments take turns, and one that would leave the balance below zero is 409 ' +
      'LOYALTY_INSUFFICIENT_POINTS (details.balance) with nothing changed; one that would take the balance or the ' +
      'lifetime points past 2,147,483,647 is 409 LOYALTY_BALANCE_LIMIT. Positive points also count towards lifetime ' +
      "points and the tier. Another company's account is 404 LOYALTY_ACCOUNT_NOT_FOUND. Idempotency-Key (optional " +
      'header, 8 to 128 characters of A-Z a-z 0-9 _ -, else 400 VALIDATION_FAILED), kept per company: a retry with the ' +
      'same key and body, even while the first call is still running, answers 200 with the adjustment that call made ' +
      'and moves nothing more; the same key with another body (or account) is 409 IDEMPOTENCY_KEY_REUSED; a refused ' +
      'adjustment keeps nothing under its key. Without the header every call moves points, so a client that may send ' +
      `again sends one. ${WRITES} (loyalty.account.adjust)`,
    responses: answers(200, 'The account after the adjustment', Adjusted, CHANGE_REFUSALS),
  },
});
