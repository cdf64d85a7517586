import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authorizesBoarding,
  canonicalJson,
  credentialPayload,
  credentialRefusal,
  encodeRevocationCursor,
  publicJwk,
  readRevocationCursor,
  reissueRefusal,
  REVOCATION_OVERLAP_SECONDS,
  revocationPage,
  signCredential,
  verifyCredential,
  type BoardingCredentialPayload,
} from './boarding-credential.js';

const ticket = {
  ticketId: '6f1c7a52-0d0e-4a57-9a3e-7f1c2d3b4a5c',
  tripId: '0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c',
  companyId: '9d2e1f40-1b2c-4d3e-8f90-a1b2c3d4e5f6',
  legSequence: 1,
  travellerName: 'سارة الحلبي',
  seatNumber: '12A',
  boardStopCallId: '1a2b3c4d-0000-4000-8000-000000000001',
  alightStopCallId: '1a2b3c4d-0000-4000-8000-000000000002',
  departureAt: new Date('2026-12-01T05:30:00Z'),
};

describe('canonical JSON', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('gives the same text whatever order the keys arrived in', () => {
    const payload = credentialPayload(ticket, new Date('2026-11-30T10:00:00Z'), 'key-1');
    const reversed = Object.fromEntries(Object.entries(payload).reverse());
    const roundTripped = JSON.parse(JSON.stringify(reversed, null, 2));
    expect(canonicalJson(reversed)).toBe(canonicalJson(payload));
    expect(canonicalJson(roundTripped)).toBe(canonicalJson(payload));
  });

  it('orders keys by UTF-16 code units and keeps non-ASCII text as is', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, '': 4 })).toBe('{"":4,"Z":3,"z":2,"é":1}');
    expect(canonicalJson({ name: 'سارة "س"' })).toBe('{"name":"سارة \\"س\\""}');
  });

  it('refuses values JSON cannot carry exactly', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson({ at: new Date() })).toThrow(TypeError);
    expect(() => canonicalJson({ missing: undefined })).toThrow(TypeError);
  });
});

describe('boarding credential signature', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const payload = credentialPayload(ticket, new Date('2026-11-30T10:00:00Z'), 'key-1');
  const signature = signCredential(payload, privateKey);

  it('carries only what a scanner needs', () => {
    expect(Object.keys(payload).sort()).toEqual([
      'alightStopCallId',
      'boardStopCallId',
      'companyId',
      'departureAt',
      'issuedAt',
      'keyId',
      'legSequence',
      'seatNumber',
      'ticketId',
      'travellerName',
      'tripId',
      'v',
    ]);
    expect(payload).toMatchObject({ v: 1, departureAt: '2026-12-01T05:30:00.000Z', keyId: 'key-1' });
  });

  it('is an Ed25519 signature in base64url that verifies with the public key', () => {
    expect(signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifyCredential(payload, signature, publicKey)).toBe(true);
  });

  it('still verifies after the payload went through a store that re-orders keys', () => {
    const stored = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(payload).reverse())));
    expect(verifyCredential(stored, signature, publicKey)).toBe(true);
  });

  it('fails for any change to the payload', () => {
    const tampered: BoardingCredentialPayload[] = [
      { ...payload, seatNumber: '12B' },
      { ...payload, tripId: ticket.companyId },
      { ...payload, travellerName: 'سارة الحلبى' },
      { ...payload, legSequence: 2 },
    ];
    for (const changed of tampered) expect(verifyCredential(changed, signature, publicKey)).toBe(false);
    expect(verifyCredential({ ...payload, extra: 'field' }, signature, publicKey)).toBe(false);
  });

  it('fails for a changed or malformed signature and for another key', () => {
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(verifyCredential(payload, flipped.toString('base64url'), publicKey)).toBe(false);
    expect(verifyCredential(payload, signature.slice(0, -2), publicKey)).toBe(false);
    expect(verifyCredential(payload, `${signature}==`, publicKey)).toBe(false);
    expect(verifyCredential(payload, signature, generateKeyPairSync('ed25519').publicKey)).toBe(false);
    expect(
      verifyCredential(payload, signature, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey),
    ).toBe(false);
  });

  it('publishes the public key as an OKP JSON Web Key', () => {
    const jwk = publicJwk(publicKey, 'key-1');
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'key-1', alg: 'EdDSA', use: 'sig' });
    expect(Buffer.from(jwk.x, 'base64url')).toHaveLength(32);
  });
});

describe('the verdict at the door', () => {
  const valid = { status: 'VALID', boardingAuthorized: true, revoked: false, signature: 'sig' };
  const facts = {
    keyKnown: true,
    signatureValid: true,
    payloadTripId: 'trip-1',
    boardingTripId: 'trip-1',
    ticket: valid,
    presentedSignature: 'sig',
  };

  it('lets an authentic, current, valid ticket of this trip board', () => {
    expect(credentialRefusal(facts)).toBeNull();
  });

  it('believes nothing in a payload whose key or signature fails', () => {
    expect(credentialRefusal({ ...facts, keyKnown: false, signatureValid: false })).toBe('UNKNOWN_KEY');
    expect(credentialRefusal({ ...facts, signatureValid: false, payloadTripId: 'trip-2' })).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('refuses another trip, a revoked credential, then any ticket not valid now', () => {
    expect(credentialRefusal({ ...facts, payloadTripId: 'trip-2' })).toBe('WRONG_TRIP');
    expect(credentialRefusal({ ...facts, ticket: { ...valid, status: 'CANCELLED', revoked: true } })).toBe(
      'REVOKED',
    );
    expect(credentialRefusal({ ...facts, ticket: { ...valid, status: 'USED' } })).toBe('TICKET_NOT_VALID');
    expect(credentialRefusal({ ...facts, ticket: { ...valid, boardingAuthorized: false } })).toBe(
      'TICKET_NOT_VALID',
    );
    expect(credentialRefusal({ ...facts, ticket: { ...valid, signature: 'newer' } })).toBe(
      'TICKET_NOT_VALID',
    );
    expect(credentialRefusal({ ...facts, ticket: undefined })).toBe('TICKET_NOT_VALID');
  });

  it('refuses a valid ticket whose QR has expired, after every other check', () => {
    expect(credentialRefusal({ ...facts, ticket: { ...valid, expired: true } })).toBe('EXPIRED');
    expect(credentialRefusal({ ...facts, ticket: { ...valid, status: 'USED', expired: true } })).toBe(
      'TICKET_NOT_VALID',
    );
    expect(credentialRefusal({ ...facts, ticket: { ...valid, expired: false } })).toBeNull();
  });
});

describe('authorizesBoarding', () => {
  it('shows a credential only for a VALID, authorised, signed ticket that is not revoked', () => {
    const valid = { status: 'VALID', boardingAuthorized: true, revoked: false, signature: 'sig' };
    expect(authorizesBoarding(valid)).toBe(true);
    expect(authorizesBoarding({ ...valid, status: 'USED' })).toBe(false);
    expect(authorizesBoarding({ ...valid, boardingAuthorized: false })).toBe(false);
    expect(authorizesBoarding({ ...valid, revoked: true })).toBe(false);
    expect(authorizesBoarding({ ...valid, signature: null })).toBe(false);
  });
});

describe('revocationPage', () => {
  const asOf = new Date('2026-12-01T08:00:00Z');
  const at = (minute: number) => {
    const revokedAt = new Date(asOf.getTime() - (60 - minute) * 60_000);
    return {
      ticketId: `6f1c7a52-0d0e-4a57-9a3e-7f1c2d3b4a${String(minute).padStart(2, '0')}`,
      revokedAt,
      revokedAtExact: revokedAt.toISOString().replace('Z', '123Z'),
    };
  };

  it('steps the next poll back by the overlap when the page is the last one', () => {
    const { page, hasMore, nextSince } = revocationPage([at(1), at(2)], 2, asOf);
    expect(page).toHaveLength(2);
    expect(hasMore).toBe(false);
    expect(nextSince).toEqual(new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000));
  });

  it('continues from the last entry when more follow', () => {
    const { page, hasMore, nextSince } = revocationPage([at(1), at(2), at(3)], 2, asOf);
    expect(page).toEqual([at(1), at(2)]);
    expect(hasMore).toBe(true);
    expect(nextSince).toEqual(at(2).revokedAt);
  });

  it('hands out a cursor right after the last entry, to the microsecond, when more follow', () => {
    const { nextCursor } = revocationPage([at(1), at(2), at(3)], 2, asOf);
    expect(readRevocationCursor(nextCursor)).toEqual({
      at: at(2).revokedAtExact,
      afterTicketId: at(2).ticketId,
      rewindTo: new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000).toISOString(),
    });
  });

  it('rewinds the poll after a catch-up to the overlap before its first page, however long it took', () => {
    const { nextCursor: within } = revocationPage([at(1), at(2), at(3)], 2, asOf);
    const later = new Date(asOf.getTime() + 3 * REVOCATION_OVERLAP_SECONDS * 1000);
    const { nextCursor, nextSince } = revocationPage([at(3)], 2, later, readRevocationCursor(within));
    const rewound = new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000);
    expect(readRevocationCursor(nextCursor)).toEqual({ at: rewound.toISOString(), afterTicketId: null });
    expect(nextSince).toEqual(rewound);
  });

  it('hands out a cursor at the overlap instant when the page is the last one', () => {
    const { nextCursor } = revocationPage([at(1)], 2, asOf);
    expect(readRevocationCursor(nextCursor)).toEqual({
      at: new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000).toISOString(),
      afterTicketId: null,
    });
  });
});

describe('readRevocationCursor', () => {
  const encoded = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const ticketId = '6f1c7a52-0d0e-4a57-9a3e-7f1c2d3b4a5c';

  it('reads back exactly what the list encodes', () => {
    for (const cursor of [
      { at: '2026-12-01T07:55:00.123456Z', afterTicketId: ticketId },
      { at: '2026-12-01T07:55:00.000Z', afterTicketId: null },
      { at: '2026-12-01T07:55:00.123456Z', afterTicketId: ticketId, rewindTo: '2026-12-01T07:50:00.000Z' },
    ]) {
      expect(readRevocationCursor(encodeRevocationCursor(cursor))).toEqual(cursor);
    }
  });

  it('refuses any text the list never hands out', () => {
    for (const text of [
      '',
      'not a cursor',
      encoded('2026-12-01T07:55:00Z'),
      encoded(`2026-12-01T07:55:00Z/${ticketId}/x`),
      encoded('2026-12-01T07:55:00Z//2026-12-01T07:50:00Z'),
      encoded(`2026-12-01T07:55:00Z/${ticketId}/2026-12-01T07:50:00Z/`),
      encoded(`2026-12-01T07:55:00+03:00/${ticketId}`),
      encoded(`2026-02-30T07:55:00Z/${ticketId}`),
      encoded(`0000-01-01T00:00:00Z/${ticketId}`),
      encoded('2026-12-01T07:55:00.1234567Z/'),
      encoded('2026-12-01T07:55:00Z/not-a-ticket'),
      `${encodeRevocationCursor({ at: '2026-12-01T07:55:00Z', afterTicketId: null })}=`,
    ]) {
      expect(readRevocationCursor(text), text).toBeNull();
    }
  });
});

describe('reissueRefusal', () => {
  const ticket = {
    ownerUserId: 'u1',
    journeyStatus: 'CONFIRMED',
    status: 'VALID',
    boardingAuthorized: true,
    revoked: false,
    beforeDeparture: true,
  };
  const codeOf = (overrides: Partial<typeof ticket> | undefined, userId = 'u1') =>
    reissueRefusal(overrides && { ...ticket, ...overrides }, userId)?.code ?? null;

  it('re-issues an own valid ticket of a confirmed journey before departure', () => {
    expect(codeOf({})).toBeNull();
  });

  it('refuses, in order, a missing or foreign ticket (404), an unconfirmed journey, an invalid ticket, a departed trip', () => {
    expect(reissueRefusal(undefined, 'u1')).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
    expect(codeOf({}, 'u2')).toBe('TICKET_NOT_FOUND');
    expect(codeOf({ journeyStatus: 'REQUESTED', status: 'PENDING_CONFIRMATION' })).toBe(
      'BOOKING_NOT_CONFIRMED',
    );
    expect(codeOf({ status: 'USED', beforeDeparture: false })).toBe('TICKET_NOT_VALID');
    expect(codeOf({ boardingAuthorized: false })).toBe('TICKET_NOT_VALID');
    // A refund that kept the booking revoked it: its traveller no longer boards.
    expect(codeOf({ revoked: true })).toBe('TICKET_NOT_VALID');
    expect(codeOf({ beforeDeparture: false })).toBe('TRIP_ALREADY_DEPARTED');
  });
});
