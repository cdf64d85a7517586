import { describe, expect, it } from 'vitest';
import {
  actorOf,
  idleExpiresAt,
  issuerMember,
  mayRevoke,
  reaches,
  sessionEnd,
  sessionEndedRefusal,
  shareableKinds,
  unacceptable,
  type RevocableGrantFacts,
  type ShareIssuer,
} from './document-sharing.js';

const COMPANY = 'company-1';
const OTHER_COMPANY = 'company-2';
const traveller: ShareIssuer = { kind: 'TRAVELLER', userId: 'user-1', passengerId: 'passenger-1' };
const otherTraveller = (userId: string): ShareIssuer => ({
  kind: 'TRAVELLER',
  userId,
  passengerId: `passenger-of-${userId}`,
});
const staff = (role: string, companyId = COMPANY): ShareIssuer => ({
  kind: 'STAFF',
  staffUserId: `staff-${role}`,
  companyId,
  role,
  sessionId: `session-${role}`,
  membershipId: `membership-${role}`,
});
const driver: ShareIssuer = {
  kind: 'DRIVER',
  staffUserId: 'driver-1',
  companyId: COMPANY,
  role: 'DRIVER',
  sessionId: 'session-driver',
  membershipId: 'membership-driver',
};
const booking = {
  companyId: COMPANY,
  ownerUserId: 'user-1',
  passengerId: 'passenger-1',
  driverId: 'driver-1',
};

describe('who reaches a booking to share its documents', () => {
  it('its traveller owner, not another traveller', () => {
    expect(reaches(traveller, booking)).toBe(true);
    expect(reaches(otherTraveller('user-2'), booking)).toBe(false);
  });

  it('an imported booking (no owner) reaches the traveller whose canonical passenger it was made for', () => {
    const imported = { ...booking, ownerUserId: null };
    expect(reaches(traveller, imported)).toBe(true);
    expect(reaches(otherTraveller('user-2'), imported)).toBe(false);
  });

  it("every company user of the booking's company, none of another company", () => {
    expect(reaches(staff('STAFF'), booking)).toBe(true);
    expect(reaches(staff('ACCOUNTANT'), booking)).toBe(true);
    expect(reaches(staff('OWNER', OTHER_COMPANY), booking)).toBe(false);
  });

  it("only the driver assigned to the booking's trip", () => {
    expect(reaches(driver, booking)).toBe(true);
    expect(reaches({ ...driver, staffUserId: 'driver-2' }, booking)).toBe(false);
    expect(reaches(driver, { ...booking, driverId: null })).toBe(false);
    expect(reaches(driver, { ...booking, companyId: OTHER_COMPANY })).toBe(false);
  });
});

describe('which kinds an issuer may share', () => {
  const everything = ['BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT'];
  const confirmations = ['BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'];

  it.each([
    ['the traveller', traveller, everything],
    ['an OWNER', staff('OWNER'), everything],
    ['an ADMIN', staff('ADMIN'), everything],
    ['a DISPATCHER', staff('DISPATCHER'), confirmations],
    ['a STAFF user', staff('STAFF'), confirmations],
    ['an ACCOUNTANT', staff('ACCOUNTANT'), []],
    ['an unknown role', staff('SOMEONE'), []],
    ['the assigned driver', driver, ['BOOKING_CONFIRMATION', 'PAYMENT_RECEIPT']],
  ])('%s: %j', (_who, issuer, kinds) => {
    expect([...shareableKinds(issuer)]).toEqual(kinds);
  });
});

describe('who may revoke a share', () => {
  const bySomeTraveller: RevocableGrantFacts = {
    issuerKind: 'TRAVELLER',
    issuerId: 'user-3',
    companyId: COMPANY,
    bookingOwnerUserId: 'user-1',
    bookingPassengerId: 'passenger-1',
  };
  const byDispatcher: RevocableGrantFacts = {
    issuerKind: 'STAFF',
    issuerId: 'staff-DISPATCHER',
    companyId: COMPANY,
    bookingOwnerUserId: 'user-9',
    bookingPassengerId: 'passenger-9',
  };

  it('its traveller issuer, or the traveller who owns the booking', () => {
    expect(mayRevoke(otherTraveller('user-3'), bySomeTraveller)).toBe(true);
    expect(mayRevoke(traveller, bySomeTraveller)).toBe(true);
    expect(mayRevoke(otherTraveller('user-4'), bySomeTraveller)).toBe(false);
  });

  it('the traveller whose canonical passenger an imported booking (no owner) was made for', () => {
    const ofImported = { ...byDispatcher, bookingOwnerUserId: null, bookingPassengerId: 'passenger-1' };
    expect(mayRevoke(traveller, ofImported)).toBe(true);
    expect(mayRevoke(otherTraveller('user-4'), ofImported)).toBe(false);
  });

  it('its company user issuer, whatever the role', () => {
    expect(mayRevoke(staff('DISPATCHER'), byDispatcher)).toBe(true);
    expect(mayRevoke(staff('STAFF'), byDispatcher)).toBe(false);
  });

  it("an OWNER or ADMIN of the booking's company, not of another company", () => {
    expect(mayRevoke(staff('OWNER'), byDispatcher)).toBe(true);
    expect(mayRevoke(staff('ADMIN'), bySomeTraveller)).toBe(true);
    expect(mayRevoke(staff('OWNER', OTHER_COMPANY), byDispatcher)).toBe(false);
  });

  it('a traveller id that equals a staff issuer id gives a traveller nothing', () => {
    expect(mayRevoke(otherTraveller('staff-DISPATCHER'), byDispatcher)).toBe(false);
  });

  it('a driver only its own shares', () => {
    const byDriver = { ...byDispatcher, issuerKind: 'DRIVER' as const, issuerId: 'driver-1' };
    expect(mayRevoke(driver, byDriver)).toBe(true);
    expect(mayRevoke(driver, byDispatcher)).toBe(false);
  });
});

describe('the actor a grant records', () => {
  it('a traveller by user id, a company user by staff user id and role', () => {
    expect(actorOf(traveller)).toEqual({ kind: 'TRAVELLER', id: 'user-1', role: 'TRAVELLER' });
    expect(actorOf(staff('ADMIN'))).toEqual({ kind: 'STAFF', id: 'staff-ADMIN', role: 'ADMIN' });
    expect(actorOf(driver)).toEqual({ kind: 'DRIVER', id: 'driver-1', role: 'DRIVER' });
  });
});

describe('the issuer that the grant write checks again', () => {
  it('a company user by session and membership, with the roles that may share the kind', () => {
    expect(issuerMember(staff('DISPATCHER'), 'INVOICE')).toEqual({
      sessionId: 'session-DISPATCHER',
      membershipId: 'membership-DISPATCHER',
      staffUserId: 'staff-DISPATCHER',
      allowedRoles: ['OWNER', 'ADMIN'],
    });
    expect(issuerMember(staff('STAFF'), 'BOOKING_CONFIRMATION')?.allowedRoles).toEqual([
      'OWNER',
      'ADMIN',
      'DISPATCHER',
      'STAFF',
    ]);
    expect(issuerMember(driver, 'PAYMENT_RECEIPT')?.allowedRoles).toEqual(['DRIVER']);
  });

  it('no one for a traveller, whose share is no write of the company', () => {
    expect(issuerMember(traveller, 'INVOICE')).toBeNull();
  });
});

describe('whether a link can be accepted', () => {
  it.each([
    ['no grant', null, 'SHARE_NOT_FOUND', 404],
    ['an accepted grant', { status: 'ACCEPTED', linkOpen: true }, 'SHARE_ALREADY_ACCEPTED', 409],
    ['a revoked grant', { status: 'REVOKED', linkOpen: true }, 'SHARE_REVOKED', 410],
    ['an expired grant', { status: 'EXPIRED', linkOpen: true }, 'SHARE_EXPIRED', 410],
    ['a link past its time', { status: 'CREATED', linkOpen: false }, 'SHARE_EXPIRED', 410],
  ] as const)('%s is refused with %s', (_what, grant, code, status) => {
    const refusal = unacceptable(grant);
    expect(refusal?.code).toBe(code);
    expect(refusal?.status).toBe(status);
  });

  it('a created grant with an open link is accepted', () => {
    expect(unacceptable({ status: 'CREATED', linkOpen: true })).toBeNull();
  });
});

describe('whether a recipient session is over', () => {
  const live = { endedReason: null, grantStatus: 'ACCEPTED', pastEnd: false, idle: false } as const;

  it('a live session is not', () => {
    expect(sessionEnd(live)).toBeNull();
  });

  it('an ended session keeps the reason it ended with', () => {
    expect(sessionEnd({ ...live, endedReason: 'IDLE', grantStatus: 'REVOKED' })).toBe('IDLE');
  });

  it('a revoked grant ends it before its time or idleness count', () => {
    expect(sessionEnd({ ...live, grantStatus: 'REVOKED', pastEnd: true, idle: true })).toBe('REVOKED');
  });

  it('an expired grant or the hard end expires it, before idleness counts', () => {
    expect(sessionEnd({ ...live, grantStatus: 'EXPIRED' })).toBe('EXPIRED');
    expect(sessionEnd({ ...live, pastEnd: true, idle: true })).toBe('EXPIRED');
  });

  it('idleness ends it', () => {
    expect(sessionEnd({ ...live, idle: true })).toBe('IDLE');
  });

  it('a revoked share answers 410 SHARE_REVOKED, any other end 410 SHARE_SESSION_EXPIRED', () => {
    expect(sessionEndedRefusal('REVOKED')).toMatchObject({ status: 410, code: 'SHARE_REVOKED' });
    expect(sessionEndedRefusal('IDLE')).toMatchObject({ status: 410, code: 'SHARE_SESSION_EXPIRED' });
    expect(sessionEndedRefusal('EXPIRED')).toMatchObject({ status: 410, code: 'SHARE_SESSION_EXPIRED' });
  });

  it('an idle session ends after the idle time, never after the hard end', () => {
    const expiresAt = new Date('2026-01-01T10:30:00Z');
    const lastSeenAt = new Date('2026-01-01T10:00:00Z');
    const idle = 15 * 60_000;
    expect(idleExpiresAt({ expiresAt, lastSeenAt }, idle).toISOString()).toBe('2026-01-01T10:15:00.000Z');
    const late = new Date('2026-01-01T10:20:00Z');
    expect(idleExpiresAt({ expiresAt, lastSeenAt: late }, idle)).toEqual(expiresAt);
  });
});
