import { describe, expect, it } from 'vitest';
import { Refusal } from './refusal.js';
import {
  addressHolderOutcome,
  completedProfile,
  IdentityRefusal,
  linkedAccountRefusal,
  linkRefusal,
  nonceInvalid,
  phoneOwnerRefusal,
  planPhoneCompletion,
  releasesClaim,
  safeToAbsorb,
  unlinkRefusal,
  type PhoneAccount,
  type TravellerRecord,
} from './traveller-identity.js';

const account = (fields: Partial<PhoneAccount> = {}): PhoneAccount => ({
  id: 'me',
  phone: null,
  passengerId: null,
  appMetadata: {},
  status: 'ACTIVE',
  hasPassword: false,
  hasIdentity: true,
  emailVerified: false,
  hasOperationalData: false,
  ...fields,
});

const record = (
  id: string,
  createdEpoch: number,
  fields: Partial<TravellerRecord> = {},
): TravellerRecord => ({
  id,
  createdEpoch,
  mergedIntoId: null,
  hasOperationalData: false,
  ...fields,
});

const codeOf = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    return (error as IdentityRefusal).code;
  }
  return undefined;
};

describe('identity refusals', () => {
  it('are Refusals carrying the HTTP status of their code', () => {
    const refusal = nonceInvalid();
    expect(refusal).toBeInstanceOf(Refusal);
    expect([refusal.status, refusal.errorCode]).toEqual([401, 'IDP_NONCE_INVALID']);
    expect(new IdentityRefusal('IDP_IDENTITY_NOT_FOUND', 'x').status).toBe(404);
    expect(new IdentityRefusal('ACCOUNT_DISABLED', 'x').status).toBe(403);
    expect(new IdentityRefusal('IDP_ALREADY_LINKED', 'x').status).toBe(409);
  });
});

describe('signing in with a subject', () => {
  const holder = { id: 'u', status: 'ACTIVE', emailVerified: true, hasIdentity: false };

  it('adds the subject to an active account whose own verified address it is', () => {
    expect(addressHolderOutcome(holder)).toEqual({ kind: 'join' });
  });

  it('takes an address an account holds unverified from it, whatever else the account is', () => {
    for (const change of [{}, { hasIdentity: true }, { status: 'DISABLED' }]) {
      expect(addressHolderOutcome({ ...holder, ...change, emailVerified: false })).toEqual({
        kind: 'release',
      });
    }
  });

  it.each([
    ['an account with another subject', { hasIdentity: true }],
    ['a disabled account', { status: 'DISABLED' }],
  ])('is a conflict for %s', (_case, change) => {
    const outcome = addressHolderOutcome({ ...holder, ...change });
    expect(outcome.kind === 'refuse' && outcome.refusal.code).toBe('IDP_ACCOUNT_CONFLICT');
  });

  it('is a conflict for a subject the holder unlinked, verified or not', () => {
    for (const emailVerified of [true, false]) {
      const outcome = addressHolderOutcome({ ...holder, emailVerified }, true);
      expect(outcome.kind === 'refuse' && outcome.refusal.code).toBe('IDP_ACCOUNT_CONFLICT');
    }
  });

  it('refuses a linked subject whose account is disabled', () => {
    expect(linkedAccountRefusal({ status: 'ACTIVE' })).toBeNull();
    expect(linkedAccountRefusal({ status: 'DISABLED' })?.code).toBe('ACCOUNT_DISABLED');
  });
});

describe('linking and unlinking', () => {
  const facts = {
    userId: 'me',
    subject: 's1',
    currentSubject: null,
    linkedElsewhere: false,
    emailHolder: null,
  };

  it('links a free subject, and the same subject again is harmless', () => {
    expect(linkRefusal(facts)).toBeNull();
    expect(linkRefusal({ ...facts, emailHolder: { id: 'me', emailVerified: false } })).toBeNull();
    expect(linkRefusal({ ...facts, currentSubject: 's1' })).toBeNull();
  });

  it('refuses a second subject, or one another account has or whose address it holds', () => {
    expect(linkRefusal({ ...facts, currentSubject: 's2' })?.code).toBe('IDP_ALREADY_LINKED');
    expect(linkRefusal({ ...facts, linkedElsewhere: true })?.code).toBe('IDP_ACCOUNT_CONFLICT');
    expect(linkRefusal({ ...facts, emailHolder: { id: 'other', emailVerified: true } })?.code).toBe(
      'IDP_ACCOUNT_CONFLICT',
    );
  });

  it('takes an address another account holds unverified from it, never from the linking account', () => {
    const unverified = { id: 'other', emailVerified: false };
    expect(linkRefusal({ ...facts, emailHolder: unverified })).toBeNull();
    expect(releasesClaim('me', unverified)).toBe('other');
    expect(releasesClaim('me', { id: 'me', emailVerified: false })).toBeNull();
    expect(releasesClaim('me', { id: 'other', emailVerified: true })).toBeNull();
    expect(releasesClaim('me', null)).toBeNull();
  });

  it('unlinks only while a phone, or a password with a verified address, remains', () => {
    const none = { hasPhone: false, hasPassword: false, emailVerified: false };
    expect(unlinkRefusal({ ...none, hasPhone: true }, true)).toBeNull();
    expect(unlinkRefusal({ ...none, hasPassword: true, emailVerified: true }, true)).toBeNull();
    expect(unlinkRefusal({ ...none, hasPassword: true }, true)?.code).toBe('LAST_SIGN_IN_METHOD');
    expect(unlinkRefusal(none, false)?.code).toBe('IDP_IDENTITY_NOT_FOUND');
    expect(unlinkRefusal(null, true)?.code).toBe('IDP_IDENTITY_NOT_FOUND');
  });
});

describe('completing the phone', () => {
  it('never trades one number for another; the same number again is harmless', () => {
    expect(phoneOwnerRefusal(account({ phone: '+963944000001' }), '+963944000002')?.code).toBe(
      'PHONE_ALREADY_SET',
    );
    expect(phoneOwnerRefusal(account(), '+963944000002')).toBeNull();
    expect(completedProfile(account({ phone: '+963944000001', passengerId: 'p' }), '+963944000001')).toBe(
      'p',
    );
    expect(completedProfile(account({ phone: '+963944000001' }), '+963944000001')).toBeNull();
  });

  it('attaches a number no traveller record has', () => {
    const mine = record('p-me', 10);
    expect(
      planPhoneCompletion({ me: account({ passengerId: 'p-me' }), oldUser: null, records: [mine] }),
    ).toEqual({
      kind: 'attach',
      mine,
    });
  });

  it('keeps the older record as canonical and absorbs the other', () => {
    const mine = record('p-me', 20);
    const old = record('p-old', 10);
    const oldUser = account({ id: 'old', hasIdentity: false, passengerId: 'p-old' });
    expect(
      planPhoneCompletion({ me: account({ passengerId: 'p-me' }), oldUser, records: [mine, old] }),
    ).toEqual({ kind: 'merge', canonical: old, absorbed: mine, oldUserId: 'old' });
  });

  it('folds in an old account only when the phone was its one way in and it saw the same inventory', () => {
    const me = account();
    const old = account({ id: 'old', hasIdentity: false });
    expect(safeToAbsorb(old, me)).toBe(true);
    expect(safeToAbsorb({ ...old, hasPassword: true }, me)).toBe(false);
    expect(safeToAbsorb({ ...old, hasIdentity: true }, me)).toBe(false);
    expect(safeToAbsorb({ ...old, emailVerified: true }, me)).toBe(false);
    expect(safeToAbsorb({ ...old, status: 'DISABLED' }, me)).toBe(false);
    expect(safeToAbsorb({ ...old, appMetadata: { inventory_scope: 'INTERNAL' } }, me)).toBe(false);
  });

  it.each([
    ['two other records', [record('a', 1), record('b', 2)], null],
    ['a record merged away', [record('a', 1, { mergedIntoId: 'x' })], null],
    [
      'operational data on both sides',
      [record('p-me', 2, { hasOperationalData: true }), record('a', 1, { hasOperationalData: true })],
      null,
    ],
    ['an old account with a password', [record('a', 1)], account({ id: 'old', hasPassword: true })],
  ])('needs recovery for %s', (_case, records, oldUser) => {
    const me = account({ passengerId: 'p-me' });
    expect(codeOf(() => planPhoneCompletion({ me, oldUser, records }))).toBe(
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
  });

  it("weighs an account's own operational data with its profile's", () => {
    const mine = record('p-me', 20, { hasOperationalData: true });
    const old = record('p-old', 10);
    const oldUser = account({
      id: 'old',
      hasIdentity: false,
      passengerId: 'p-old',
      hasOperationalData: true,
    });
    const me = account({ passengerId: 'p-me' });
    expect(codeOf(() => planPhoneCompletion({ me, oldUser, records: [mine, old] }))).toBe(
      'ACCOUNT_LINK_REQUIRES_RECOVERY',
    );
    expect(
      codeOf(() =>
        planPhoneCompletion({
          me: { ...me, hasOperationalData: true },
          oldUser,
          records: [record('p-me', 20), old],
        }),
      ),
    ).toBe('ACCOUNT_LINK_REQUIRES_RECOVERY');
    expect(planPhoneCompletion({ me, oldUser, records: [record('p-me', 20), old] })).toMatchObject({
      kind: 'merge',
      oldUserId: 'old',
    });
    expect(
      planPhoneCompletion({
        me: { ...me, hasOperationalData: true },
        oldUser: { ...oldUser, hasOperationalData: false },
        records: [record('p-me', 20), old],
      }),
    ).toMatchObject({ kind: 'merge', oldUserId: 'old' });
  });
});
