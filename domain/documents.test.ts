import { describe, expect, it } from 'vitest';
import {
  boardingTickets,
  credentialText,
  mayView,
  newestIssue,
  receiptOf,
  refuseCancellation,
  refuseInvoice,
  type BoardingTicketFacts,
} from './documents.js';
import { Refusal } from './refusal.js';

const signed = (issuedAt: number, facts: Partial<BoardingTicketFacts> = {}): BoardingTicketFacts => ({
  status: 'VALID',
  boardingAuthorized: true,
  signature: 'sig',
  revoked: false,
  issuedAt,
  ...facts,
});
const confirmed = { status: 'CONFIRMED', journeyStatus: 'CONFIRMED', tripOver: false };

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
  return undefined;
};

describe('boarding documents (SPEC "Document ticket validity")', () => {
  it('print the authorized, signed, unrevoked tickets of a confirmed journey', () => {
    const tickets = [signed(1), signed(2, { revoked: true }), signed(3, { boardingAuthorized: false })];
    expect(boardingTickets(confirmed, tickets)).toEqual([tickets[0]]);
  });

  it('are not confirmed yet while no credential was ever signed', () => {
    expect(codeOf(() => boardingTickets(confirmed, [signed(0, { issuedAt: null })]))).toBe(
      'BOOKING_NOT_CONFIRMED',
    );
    expect(codeOf(() => boardingTickets({ ...confirmed, journeyStatus: 'HELD' }, [signed(1)]))).toBe(
      'BOOKING_NOT_CONFIRMED',
    );
  });

  it('are gone once the trip is over or the booking cancelled', () => {
    expect(codeOf(() => boardingTickets({ ...confirmed, tripOver: true }, [signed(1)]))).toBe(
      'DOCUMENT_GONE',
    );
    expect(codeOf(() => boardingTickets({ ...confirmed, status: 'CANCELLED' }, []))).toBe('DOCUMENT_GONE');
  });

  it('are gone when every credential was used, not confirmed while one still awaits the company', () => {
    expect(codeOf(() => boardingTickets(confirmed, [signed(1, { status: 'USED' })]))).toBe('DOCUMENT_GONE');
    const pending = signed(1, { status: 'PENDING_CONFIRMATION' });
    expect(codeOf(() => boardingTickets(confirmed, [pending]))).toBe('BOOKING_NOT_CONFIRMED');
  });

  it('are issued when their newest credential was signed', () => {
    expect(newestIssue([signed(1_000), signed(5_000)])).toBe('1970-01-01T00:00:05.000Z');
  });
});

describe('invoices, cancellation confirmations and receipts', () => {
  it('an invoice once confirmed; gone once cancelled', () => {
    expect(refuseInvoice('COMPLETED')).toBeNull();
    expect(refuseInvoice('PENDING')?.code).toBe('BOOKING_NOT_CONFIRMED');
    expect(refuseInvoice('CANCELLED')?.code).toBe('DOCUMENT_GONE');
  });

  it('a cancellation confirmation only for a cancelled booking', () => {
    expect(refuseCancellation('CANCELLED')).toBeNull();
    expect(refuseCancellation('CONFIRMED')?.code).toBe('BOOKING_NOT_CANCELLED');
  });

  it("a refunded payment's receipt is its refund notice", () => {
    const refunded = { status: 'REFUNDED' as const };
    expect(receiptOf('PAYMENT_RECEIPT', refunded)).toEqual({ kind: 'REFUND_NOTICE', record: refunded });
    expect(receiptOf('PAYMENT_RECEIPT', { status: 'COMPLETED' }).kind).toBe('PAYMENT_RECEIPT');
  });

  it('no receipt before collection, no refund notice before a refund', () => {
    expect(codeOf(() => receiptOf('PAYMENT_RECEIPT', undefined))).toBe('PAYMENT_NOT_COLLECTED');
    expect(codeOf(() => receiptOf('REFUND_NOTICE', { status: 'COMPLETED' }))).toBe('PAYMENT_NOT_REFUNDED');
  });
});

describe('who sees a booking document', () => {
  const booking = { ownerUserId: 'user-1', passengerId: 'passenger-1', companyId: 'company-1' };

  it('its traveller, its company, or the recipient of a grant', () => {
    expect(mayView({ kind: 'TRAVELLER', userId: 'user-1', passengerId: 'passenger-1' }, booking)).toBe(true);
    expect(mayView({ kind: 'TRAVELLER', userId: 'user-2', passengerId: 'passenger-2' }, booking)).toBe(false);
    expect(mayView({ kind: 'COMPANY', companyId: 'company-1' }, booking)).toBe(true);
    expect(mayView({ kind: 'COMPANY', companyId: 'company-2' }, booking)).toBe(false);
    expect(mayView({ kind: 'GRANT' }, booking)).toBe(true);
  });

  it("an imported booking (no owner) is the traveller's whose canonical passenger it was made for", () => {
    const imported = { ownerUserId: null, passengerId: 'passenger-1', companyId: 'company-1' };
    expect(mayView({ kind: 'TRAVELLER', userId: 'user-1', passengerId: 'passenger-1' }, imported)).toBe(true);
    expect(mayView({ kind: 'TRAVELLER', userId: 'user-2', passengerId: 'passenger-2' }, imported)).toBe(
      false,
    );
    expect(mayView({ kind: 'TRAVELLER', userId: 'user-3', passengerId: null }, imported)).toBe(false);
  });
});

describe('the text of a ticket QR', () => {
  it('is the canonical JSON of the payload and its signature, whatever the key order', () => {
    expect(credentialText({ b: 1, a: 2 }, 'sig')).toBe('{"payload":{"a":2,"b":1},"signature":"sig"}');
    expect(credentialText('{"b":1,"a":2}', 'sig')).toBe('{"payload":{"a":2,"b":1},"signature":"sig"}');
  });
});
