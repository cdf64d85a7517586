/**
 * The trip operations room's writes: the one transition transaction (transition.ts) and the driver
 * app's scans and position reports built on it.
 */
export { applyDispatch, dispatchTrip } from './transition.js';
export type {
  DispatchActor,
  DispatchCommand,
  DispatchEffects,
  DispatchResult,
  EndedConfirmation,
} from './trip.js';
export { recordPositions, type PositionReport } from './positions.js';
export { scanAtDoor, type ScanAnswer, type ScanInput } from './scans.js';
