import { Refusal } from './refusal.js';

/**
 * Platform incidents and their states, as one table: an open incident moves between the open
 * states as the team learns more (PATCH), and ends RESOLVED (POST .../resolve), which is final.
 */
export const INCIDENT_SEVERITIES = ['MINOR', 'MAJOR', 'CRITICAL'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type OpenIncidentStatus = Exclude<IncidentStatus, 'RESOLVED'>;
export const OPEN_INCIDENT_STATUSES = INCIDENT_STATUSES.filter(
  (status): status is OpenIncidentStatus => status !== 'RESOLVED',
);

/** From each state, the states an update or the resolve may lead to. */
export const INCIDENT_TRANSITIONS: Record<IncidentStatus, readonly IncidentStatus[]> = {
  INVESTIGATING: ['IDENTIFIED', 'MONITORING', 'RESOLVED'],
  IDENTIFIED: ['INVESTIGATING', 'MONITORING', 'RESOLVED'],
  MONITORING: ['INVESTIGATING', 'IDENTIFIED', 'RESOLVED'],
  RESOLVED: [],
};

/** Checks a change of an incident in `current` to `next` (the same status is no move); 409 otherwise. */
export function requireIncidentTransition(current: IncidentStatus, next: IncidentStatus): void {
  if (current === 'RESOLVED') {
    throw new Refusal(409, 'INCIDENT_RESOLVED', 'The incident is resolved; open a new one instead');
  }
  if (current !== next && !INCIDENT_TRANSITIONS[current].includes(next)) {
    throw new Refusal(409, 'INCIDENT_TRANSITION_REFUSED', `An incident cannot go from ${current} to ${next}`);
  }
}
