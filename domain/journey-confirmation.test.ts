import { describe, expect, it } from 'vitest';
import {
  activeHoldRefusal,
  bookingStatusOf,
  companiesNeedingDecision,
  decisionDeadline,
  confirmCheck,
  decisionKey,
  decisionOfChange,
  decisionStep,
  holdRefusal,
  isHoldable,
  leadContactRefusal,
  partyRefusal,
  releaseRefusal,
  retriesLiveHold,
  unusableHoldRefusal,
  type HoldBatchState,
  scaledMilliseconds,
  scopeDeadline,
  type CompanyConfirmationSettings,
} from './journey-confirmation.js';

const ALL_CHANNELS = ['CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER'] as const;

const company = (
  companyId: string,
  settings: Partial<CompanyConfirmationSettings> = {},
): CompanyConfirmationSettings => ({
  companyId,
  mode: 'MANUAL_CONFIRM',
  decisionWindowMinutes: 15,
  channels: ALL_CHANNELS,
  ...settings,
});

describe('companiesNeedingDecision', () => {
  it('asks only the companies that confirm manually for the booking channel', () => {
    const settings = [
      company('c-auto', { mode: 'AUTO_CONFIRM' }),
      company('b-manual-web-only', { channels: ['CUSTOMER_WEB'], decisionWindowMinutes: 60 }),
      company('a-manual', { decisionWindowMinutes: 30 }),
      company('d-no-settings', { mode: null }),
    ];
    expect(companiesNeedingDecision(settings, 'CUSTOMER_WEB')).toEqual([
      { companyId: 'a-manual', decisionWindowMinutes: 30 },
      { companyId: 'b-manual-web-only', decisionWindowMinutes: 60 },
    ]);
    expect(companiesNeedingDecision(settings, 'CUSTOMER_MOBILE')).toEqual([
      { companyId: 'a-manual', decisionWindowMinutes: 30 },
    ]);
  });

  it('needs nobody when every company confirms automatically', () => {
    expect(companiesNeedingDecision([company('x', { mode: 'AUTO_CONFIRM' })], 'RESELLER')).toEqual([]);
  });
});

describe('decision deadlines', () => {
  const now = new Date('2026-11-21T10:00:00Z');

  const departs = new Date('2026-11-23T08:00:00Z');

  it('are now + the decision window, times the time scale', () => {
    expect(decisionDeadline(now, 15, 1, departs).toISOString()).toBe('2026-11-21T10:15:00.000Z');
    expect(decisionDeadline(now, 1440, 1, departs).toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(decisionDeadline(now, 15, 0.004, departs).toISOString()).toBe('2026-11-21T10:00:03.600Z');
    expect(scaledMilliseconds(10, 1)).toBe(600_000);
  });

  it('are no later than the journey’s first departure', () => {
    const soon = new Date('2026-11-21T10:10:00Z');
    expect(decisionDeadline(now, 15, 1, soon).toISOString()).toBe('2026-11-21T10:10:00.000Z');
    expect(decisionDeadline(now, 1440, 1, departs).toISOString()).toBe('2026-11-22T10:00:00.000Z');
  });

  it('the scope waits for the earliest pending deadline', () => {
    expect(
      scopeDeadline([
        decisionDeadline(now, 60, 1, departs),
        decisionDeadline(now, 15, 1, departs),
      ])?.toISOString(),
    ).toBe('2026-11-21T10:15:00.000Z');
    expect(scopeDeadline([])).toBeNull();
  });
});

describe('projection and hold rules', () => {
  it('a requested journey reads PENDING_CONFIRMATION on its booking rows', () => {
    expect(bookingStatusOf('REQUESTED')).toBe('PENDING_CONFIRMATION');
    expect(bookingStatusOf('CONFIRMED')).toBe('CONFIRMED');
    expect(bookingStatusOf('CANCELLED')).toBe('CANCELLED');
  });

  it('a journey may be held when new, released or expired, never once requested or decided', () => {
    expect(['DRAFT', 'RELEASED', 'EXPIRED'].every((status) => isHoldable(status as 'DRAFT'))).toBe(true);
    expect(
      ['HELD', 'REQUESTED', 'CONFIRMED', 'CANCELLED'].some((status) => isHoldable(status as 'HELD')),
    ).toBe(false);
  });

  it('the fixed decision key names the request, the company and the decision', () => {
    expect(decisionKey('req', 'co', 'APPROVE')).toBe('req:co:APPROVE');
    expect(decisionKey('req', 'co', 'REJECT')).not.toBe(decisionKey('req', 'co', 'APPROVE'));
  });
});

describe('the hold rule', () => {
  it('refuses a second hold while one is active, and a journey or order past holding', () => {
    expect(holdRefusal('DRAFT')).toBeNull();
    expect(holdRefusal('EXPIRED', 'order')).toBeNull();
    expect(holdRefusal('HELD')).toEqual({
      code: 'HOLD_ALREADY_ACTIVE',
      message: 'A hold is already active; release it or confirm',
    });
    expect(holdRefusal('CONFIRMED')).toEqual({
      code: 'JOURNEY_NOT_HOLDABLE',
      message: 'The journey is CONFIRMED and cannot be held again',
    });
    expect(holdRefusal('REQUESTED', 'order')?.message).toBe(
      'The order is REQUESTED and cannot be held again',
    );
  });
});

describe('hold batch rules', () => {
  const scope = { kind: 'JOURNEY', id: 'j1' } as const;
  const batch = (state: Partial<HoldBatchState> = {}): HoldBatchState => ({
    scopeKind: 'JOURNEY',
    scopeId: 'j1',
    status: 'ACTIVE',
    live: true,
    ...state,
  });

  it('a batch of another scope, or none, is not found', () => {
    expect(releaseRefusal(null, scope)?.code).toBe('HOLD_NOT_FOUND');
    expect(releaseRefusal(batch({ scopeKind: 'ORDER' }), scope)?.code).toBe('HOLD_NOT_FOUND');
    expect(confirmCheck(batch({ scopeId: 'j2' }), scope, false)).toEqual({
      refusal: { status: 404, code: 'HOLD_NOT_FOUND', message: 'No such hold batch for this journey' },
    });
  });

  it('only an ACTIVE hold is released', () => {
    expect(releaseRefusal(batch(), scope)).toBeNull();
    expect(releaseRefusal(batch({ status: 'RELEASED' }), scope)).toEqual({
      status: 409,
      code: 'HOLD_CLOSED',
      message: 'The hold is already RELEASED',
    });
  });

  it('a confirm needs an ACTIVE hold with time left', () => {
    expect(unusableHoldRefusal(batch())).toBeNull();
    expect(unusableHoldRefusal(batch({ status: 'EXPIRED' }))?.message).toBe('The hold is already EXPIRED');
    expect(unusableHoldRefusal(batch({ live: false }))).toEqual({
      status: 409,
      code: 'HOLD_EXPIRED',
      message: 'The hold has expired; hold the journey again',
    });
    expect(confirmCheck(batch(), scope, false)).toEqual({ confirmedBefore: false });
  });

  it('a consumed hold answers a retry of its key and refuses a new key', () => {
    expect(confirmCheck(batch({ status: 'CONSUMED' }), scope, true)).toEqual({ confirmedBefore: true });
    expect(confirmCheck(batch({ status: 'CONSUMED' }), scope, false).refusal?.code).toBe('ALREADY_CONFIRMED');
  });

  it("a hold request is a retry while the scope's hold with its batch lasts", () => {
    expect(retriesLiveHold(batch(), scope)).toBe(true);
    expect(retriesLiveHold(null, scope)).toBe(false);
    expect(retriesLiveHold(batch({ scopeId: 'j2' }), scope)).toBe(false);
    expect(retriesLiveHold(batch({ live: false }), scope)).toBe(false);
    expect(retriesLiveHold(batch({ status: 'RELEASED' }), scope)).toBe(false);
  });
});

describe('travellers and decisions', () => {
  it('a journey takes exactly one traveller per party member', () => {
    expect(partyRefusal({ id: 'j1', partySize: 1 }, [{ name: 'A' }])).toBeNull();
    expect(partyRefusal({ id: 'j1', partySize: 2 }, [{ name: 'A' }])).toEqual({
      status: 400,
      code: 'TRAVELLERS_DO_NOT_MATCH_PARTY',
      message: 'Send 2 travellers for this journey',
      details: { journey_id: 'j1' },
    });
  });

  it("a journey's lead traveller needs a phone when the account has none", () => {
    const lead = (journeyId: string, phone?: string) => ({
      journeyId,
      travellers: [
        { name: 'A', ...(phone ? { phone } : {}) },
        { name: 'B', phone: '+963900111111' },
      ],
    });
    expect(leadContactRefusal([lead('j1')], '+963900222222')).toBeNull();
    expect(leadContactRefusal([lead('j1', '+963900333333')], null)).toBeNull();
    expect(leadContactRefusal([lead('j1', '+963900333333'), lead('j2')], null)).toMatchObject({
      status: 409,
      code: 'TRAVELER_PROFILE_REQUIRED',
      details: { journey_ids: ['j2'] },
    });
  });

  it('the same decision key repeats; another decision needs an open request', () => {
    expect(decisionStep({ decisionKey: 'k', open: false }, 'k')).toBe('REPEAT');
    expect(decisionStep({ decisionKey: null, open: true }, 'k')).toBe('DECIDE');
    expect(decisionStep({ decisionKey: 'other', open: false }, 'k')).toBe('CONFLICT');
    expect(decisionStep(undefined, 'k')).toBe('CONFLICT');
  });

  it('reads the legacy status body as a decision only for approval and rejection', () => {
    expect(decisionOfChange({ decision: 'REJECT' }, 'REQUESTED')).toEqual({ decision: 'REJECT' });
    expect(decisionOfChange({ status: 'CONFIRMED' }, 'REQUESTED')).toEqual({ decision: 'APPROVE' });
    expect(decisionOfChange({ status: 'CANCELLED' }, 'REQUESTED')).toEqual({ decision: 'REJECT' });
    expect(decisionOfChange({ status: 'CANCELLED' }, 'CONFIRMED').refusal?.code).toBe(
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
    );
    expect(decisionOfChange({ status: 'NO_SHOW' }, null).refusal?.message).toBe(
      'Check-in, no-show and completion belong to the trip operations room',
    );
  });
});

describe('activeHoldRefusal: an Update names the hold the process holds now', () => {
  const held = { holdBatchId: 'batch-1', phase: 'HELD' };

  it('accepts the current batch while it is held', () => {
    expect(activeHoldRefusal(held, 'batch-1')).toBeNull();
  });

  it('refuses another batch as not found', () => {
    expect(activeHoldRefusal(held, 'batch-2')?.code).toBe('HOLD_NOT_FOUND');
  });

  it('refuses a hold already confirmed or requested, and one that ended', () => {
    expect(activeHoldRefusal({ ...held, phase: 'REQUESTED' }, 'batch-1')?.code).toBe('ALREADY_CONFIRMED');
    expect(activeHoldRefusal({ ...held, phase: 'CONFIRMED' }, 'batch-1')?.code).toBe('ALREADY_CONFIRMED');
    expect(activeHoldRefusal({ ...held, phase: 'EXPIRED' }, 'batch-1')).toMatchObject({
      code: 'HOLD_CLOSED',
      message: 'The hold is already EXPIRED',
    });
  });
});
