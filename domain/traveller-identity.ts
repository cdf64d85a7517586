import { scopeFromAppMetadata, scopeToAppMetadata } from './inventory-scope.js';
import { Refusal } from './refusal.js';

/**
 * The account rules of traveller identities: signing in with the identity provider, linking and
 * unlinking its subject, and completing the phone identity with the safe merge onto one canonical
 * traveller profile. Pure rules over facts the transactions in db/writes/traveller-identity/ read
 * under their locks; each answers the refusal it ends in, or what to do.
 */

/** Each refusal of an identity change, with the HTTP status it stands for. */
export const IDENTITY_REFUSAL_STATUS = {
  IDP_NONCE_INVALID: 401,
  IDP_STAFF_ACCOUNT_CONFLICT: 409,
  IDP_ACCOUNT_CONFLICT: 409,
  IDP_ALREADY_LINKED: 409,
  IDP_IDENTITY_NOT_FOUND: 404,
  LAST_SIGN_IN_METHOD: 409,
  ACCOUNT_DISABLED: 403,
  PHONE_ALREADY_SET: 409,
  ACCOUNT_LINK_REQUIRES_RECOVERY: 409,
} as const;

export type IdentityRefusalCode = keyof typeof IDENTITY_REFUSAL_STATUS;

/** A refused identity change. */
export class IdentityRefusal extends Refusal {
  declare readonly code: IdentityRefusalCode;
  constructor(code: IdentityRefusalCode, message: string) {
    super(IDENTITY_REFUSAL_STATUS[code], code, message);
  }
}

/** The flow's nonce is unknown, expired, of another flow or kind, used, or missing from the token. */
export const nonceInvalid = () =>
  new IdentityRefusal('IDP_NONCE_INVALID', 'The sign-in attempt is unknown, expired or already used');

/** The signed-in account is gone (deleted) by the time its change runs. */
export const accountGone = () => new IdentityRefusal('ACCOUNT_DISABLED', 'This account no longer exists');

/** A traveller account that holds an e-mail address the identity provider vouched for. */
export interface EmailHolder {
  id: string;
  status: string;
  emailVerified: boolean;
  hasIdentity: boolean;
}

/**
 * What a sign-in with a subject nobody has linked yet does with the account holding its address:
 * `join` adds the subject to that account, `release` takes the address off it (the sign-in then
 * goes on as for a free address), `refuse` ends the sign-in with nothing written.
 */
export type AddressHolderOutcome =
  { kind: 'join' } | { kind: 'release' } | { kind: 'refuse'; refusal: IdentityRefusal };

/**
 * A mailbox the identity provider proved wins over a claim nobody proved: an address another
 * account holds unverified (a phone sign-up may name any free address, and keeps it unverified) is
 * taken from that account rather than lock the mailbox's owner out. An address held verified is
 * that account's own.
 */
export function unprovenClaim(holder: Pick<EmailHolder, 'emailVerified'>): boolean {
  return !holder.emailVerified;
}

/**
 * Sign-in with a subject nobody has linked yet: the account that holds its e-mail address gets the
 * subject only when that address is its own and verified, and the account is active with no
 * subject of its own; an account that holds it unverified gives it up (unprovenClaim); any other
 * holder is a conflict, and nothing is written. So is a subject the holder unlinked
 * (`unlinkedByHolder`), whatever the address: unlinking took that way in away, and only the
 * traveller, signed in, links it again.
 */
export function addressHolderOutcome(holder: EmailHolder, unlinkedByHolder = false): AddressHolderOutcome {
  if (unlinkedByHolder) {
    return {
      kind: 'refuse',
      refusal: new IdentityRefusal(
        'IDP_ACCOUNT_CONFLICT',
        'This identity-provider account was unlinked from the account of this e-mail address; sign in another way and link it again',
      ),
    };
  }
  if (unprovenClaim(holder)) return { kind: 'release' };
  if (holder.hasIdentity || holder.status !== 'ACTIVE') {
    return {
      kind: 'refuse',
      refusal: new IdentityRefusal(
        'IDP_ACCOUNT_CONFLICT',
        'This e-mail address is already used by another account',
      ),
    };
  }
  return { kind: 'join' };
}

/** A linked subject signs in to its account only while that account is active. */
export function linkedAccountRefusal(account: { status: string }): IdentityRefusal | null {
  return account.status === 'ACTIVE'
    ? null
    : new IdentityRefusal('ACCOUNT_DISABLED', 'This account is disabled');
}

/**
 * Linking a subject to the signed-in account: refused when the account already has another
 * subject, or when the subject belongs to another account, or another account holds its address
 * verified; an address another account holds unverified is taken from it (`releasesClaim`).
 * Linking the subject the account already has is harmless (no refusal, nothing to write).
 */
export function linkRefusal(facts: {
  userId: string;
  subject: string;
  /** The subject this account has linked, if any. */
  currentSubject: string | null;
  /** Another account has the subject linked. */
  linkedElsewhere: boolean;
  /** The account that holds the address, if any. */
  emailHolder: Pick<EmailHolder, 'id' | 'emailVerified'> | null;
}): IdentityRefusal | null {
  if (facts.currentSubject !== null) {
    return facts.currentSubject === facts.subject
      ? null
      : new IdentityRefusal(
          'IDP_ALREADY_LINKED',
          'Another identity-provider account is already linked; unlink it first',
        );
  }
  const heldElsewhere =
    facts.emailHolder !== null && facts.emailHolder.id !== facts.userId && !unprovenClaim(facts.emailHolder);
  if (facts.linkedElsewhere || heldElsewhere) {
    return new IdentityRefusal(
      'IDP_ACCOUNT_CONFLICT',
      'This identity or e-mail address is already used by another account',
    );
  }
  return null;
}

/** The account whose unverified claim a new link of the signed-in traveller takes the address from, if any. */
export function releasesClaim(
  userId: string,
  holder: Pick<EmailHolder, 'id' | 'emailVerified'> | null,
): string | null {
  return holder !== null && holder.id !== userId && unprovenClaim(holder) ? holder.id : null;
}

/**
 * Unlinking the subject: allowed only while another way to sign in remains, a phone (one-time
 * code) or a password with a verified e-mail address (recovery possible).
 */
export function unlinkRefusal(
  account: { hasPhone: boolean; hasPassword: boolean; emailVerified: boolean } | null,
  linked: boolean,
): IdentityRefusal | null {
  if (!account || !linked) {
    return new IdentityRefusal('IDP_IDENTITY_NOT_FOUND', 'No identity-provider account is linked');
  }
  if (!account.hasPhone && !(account.hasPassword && account.emailVerified)) {
    return new IdentityRefusal(
      'LAST_SIGN_IN_METHOD',
      'Add a phone number or a password first; this is your only way to sign in',
    );
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Completing the phone identity

/** A traveller account as completing a phone number sees it. */
export interface PhoneAccount {
  id: string;
  phone: string | null;
  passengerId: string | null;
  /** The server-set inventory scope (app_metadata). */
  appMetadata: unknown;
  status: string;
  hasPassword: boolean;
  hasIdentity: boolean;
  /** Its e-mail is verified: the identity provider and password recovery reach the account by it. */
  emailVerified: boolean;
  /**
   * The account has operational data of its own: what the traveller did under it (journeys and
   * orders, holds, bookings, payments, loyalty activity, support tickets).
   */
  hasOperationalData: boolean;
}

/** A traveller profile (passengers row) that completing a phone number may keep or absorb. */
export interface TravellerRecord {
  id: string;
  /** created_at as epoch seconds: which record is older decides the canonical one. */
  createdEpoch: number;
  mergedIntoId: string | null;
  /** Operational data hangs on the profile (favorites, journeys, bookings, loyalty activity). */
  hasOperationalData: boolean;
}

const recovery = () =>
  new IdentityRefusal(
    'ACCOUNT_LINK_REQUIRES_RECOVERY',
    'This phone number belongs to another traveller record that cannot be merged automatically; contact support',
  );

/** The account's own part of the rule: it may not trade one number for another. */
export function phoneOwnerRefusal(me: PhoneAccount, phone: string): IdentityRefusal | null {
  if (me.phone && me.phone !== phone) {
    return new IdentityRefusal('PHONE_ALREADY_SET', 'This account already has another phone number');
  }
  return null;
}

/** The profile of an account that already has this number and a profile: repeating the call is harmless. */
export function completedProfile(me: PhoneAccount, phone: string): string | null {
  return me.phone === phone ? me.passengerId : null;
}

function sameScope(left: unknown, right: unknown): boolean {
  const a = scopeFromAppMetadata(left);
  const b = scopeFromAppMetadata(right);
  return (
    a !== null &&
    b !== null &&
    JSON.stringify(scopeToAppMetadata(a)) === JSON.stringify(scopeToAppMetadata(b))
  );
}

/**
 * The old account may be folded in only if the phone was its one way in and it saw the same
 * inventory: a verified e-mail is another way in (the identity provider signs in to it by that
 * address, and password recovery reaches it), so its owner may still use it.
 */
export function safeToAbsorb(oldUser: PhoneAccount, me: PhoneAccount): boolean {
  return (
    oldUser.status === 'ACTIVE' &&
    !oldUser.hasIdentity &&
    !oldUser.hasPassword &&
    !oldUser.emailVerified &&
    sameScope(oldUser.appMetadata, me.appMetadata)
  );
}

export type PhoneCompletionPlan =
  /** No traveller record has the number: it goes to this account (and `mine`, or a new profile). */
  | { kind: 'attach'; mine: TravellerRecord | null }
  /**
   * The older record becomes canonical (a new one when neither exists), the other one is absorbed
   * into it, and the old account (if any) is retired.
   */
  | {
      kind: 'merge';
      canonical: TravellerRecord | null;
      absorbed: TravellerRecord | null;
      oldUserId: string | null;
    };

/**
 * Operational data a merge must never combine: a side (an account with its profile) has it when
 * either of the two does.
 */
const sideHasOperationalData = (account: PhoneAccount | null, record: TravellerRecord | null): boolean =>
  Boolean(account?.hasOperationalData || record?.hasOperationalData);

/**
 * What completing the phone does once the account may have it. An older phone traveller record
 * (a profile with the number, and possibly an old phone-only account) is merged when the old
 * account had no way in but the phone, was active and saw the same inventory scope, and at most
 * one of the two sides (this account with its profile, the old account with the old profile)
 * carries operational data; anything else throws ACCOUNT_LINK_REQUIRES_RECOVERY. What the old
 * account did then belongs to this one.
 */
export function planPhoneCompletion(input: {
  me: PhoneAccount;
  oldUser: PhoneAccount | null;
  /** Every profile with the number or belonging to either account. */
  records: readonly TravellerRecord[];
}): PhoneCompletionPlan {
  const { me, oldUser, records } = input;
  const mine = records.find((record) => record.id === me.passengerId) ?? null;
  const others = records.filter((record) => record.id !== me.passengerId);
  if (others.length === 0 && !oldUser) return { kind: 'attach', mine };
  if (others.length > 1) throw recovery();
  const old = others[0] ?? null;
  if (oldUser && !safeToAbsorb(oldUser, me)) throw recovery();
  if (old?.mergedIntoId) throw recovery();
  if (sideHasOperationalData(oldUser, old) && sideHasOperationalData(me, mine)) throw recovery();
  const [canonical = null, absorbed = null] = [mine, old]
    .filter((record): record is TravellerRecord => record !== null)
    .sort((a, b) => a.createdEpoch - b.createdEpoch || a.id.localeCompare(b.id));
  return { kind: 'merge', canonical, absorbed, oldUserId: oldUser?.id ?? null };
}
