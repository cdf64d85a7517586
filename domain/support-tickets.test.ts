import { describe, expect, it } from 'vitest';
import { INCIDENT_STATUSES, requireIncidentTransition } from './incidents.js';
import { TICKET_EVENTS, ticketStatusAfter, type TicketEvent, type TicketStatus } from './support-tickets.js';

describe('support ticket states', () => {
  it.each<[TicketStatus, TicketEvent, TicketStatus]>([
    ['OPEN', 'ADMIN_REPLY', 'ANSWERED'],
    ['OPEN', 'TRAVELLER_MESSAGE', 'OPEN'],
    ['OPEN', 'ASSIGN', 'OPEN'],
    ['OPEN', 'CLOSE', 'CLOSED'],
    ['ANSWERED', 'TRAVELLER_MESSAGE', 'OPEN'],
    ['ANSWERED', 'ADMIN_REPLY', 'ANSWERED'],
    ['ANSWERED', 'ASSIGN', 'ANSWERED'],
    ['ANSWERED', 'CLOSE', 'CLOSED'],
  ])('%s + %s → %s', (from, event, to) => {
    expect(ticketStatusAfter(from, event)).toBe(to);
  });

  it.each(TICKET_EVENTS)('a closed ticket refuses %s with 409 TICKET_CLOSED', (event) => {
    expect(() => ticketStatusAfter('CLOSED', event)).toThrow(
      expect.objectContaining({ status: 409, code: 'TICKET_CLOSED' }),
    );
  });
});

describe('incident states', () => {
  it('moves freely between open states and to RESOLVED, never out of RESOLVED', () => {
    for (const from of INCIDENT_STATUSES.filter((status) => status !== 'RESOLVED')) {
      for (const to of INCIDENT_STATUSES) expect(() => requireIncidentTransition(from, to)).not.toThrow();
    }
    for (const to of INCIDENT_STATUSES) {
      expect(() => requireIncidentTransition('RESOLVED', to)).toThrow(
        expect.objectContaining({ status: 409, code: 'INCIDENT_RESOLVED' }),
      );
    }
  });
});
