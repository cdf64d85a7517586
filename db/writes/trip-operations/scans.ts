import { createHash, type KeyObject } from 'node:crypto';
import { canonicalJson, publicKeyFromPem, verifyCredential } from '../../../domain/boarding-credential.js';
import {
  scanRefusal,
  scanRefusalOfDispatch,
  type ScanOutcome,
  type ScanRefusal,
} from '../../../domain/boarding-scan.js';
import type { TicketStatus } from '../../../domain/documents.js';
import { DispatchRefusal, type TravellerState } from '../../../domain/trip-dispatch.js';
import { refuseImplausibleClientInstant } from '../../../domain/trip-tracking.js';
import { boardingStateOf, findSigningKey, ticketQrExpiredSql } from '../../queries/boarding-credentials.js';
import { cashToCollectSql } from '../../queries/trip-manifest.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { companyTransaction } from '../active-company.js';
import { lockActingMember, type ActingMember } from '../acting-member.js';
import { attendanceAtSql } from './attendance.js';
import { applyDispatch } from './transition.js';
import { lockTrip, type LockedTrip, type Queryable } from './trip.js';

/**
 * POST /driver/api/trips/{id}/scan: verify a scanned boarding credential and check its traveller
 * in, in one call, safe to replay. The app gives every scan its own client scan id; the answer is
 * stored under (company, client scan id) in the same transaction as the check-in, so the same scan
 * sent again (an offline queue replayed, a retry after a lost answer) gets the stored answer with
 * replayed: true and checks nobody in twice, however long after the scan it comes (the scanned_at range is
 * checked only on the scan recorded first). The same ticket scanned by two devices is one check-in:
 * the ticket row lock makes the second wait, and it answers ALREADY_CHECKED_IN with who and when.
 */
export interface ScanInput {
  companyId: string;
  tripId: string;
  /**
   * The driver app's signed-in user, read again under the company lock (db/writes/acting-member.ts):
   * one signed out, deactivated or no longer of `allowedRoles` while the scan waited is refused,
   * and the role they hold then decides (a DRIVER scans on their own trips only).
   */
  actor: ActingMember & { name: string };
  clientScanId: string;
  deviceId: string | null;
  /**
   * When the app scanned (a replayed offline scan is checked in at that time); now when absent. Checked
   * against the server's clock (plausibleClientInstant) only when the scan is recorded for the first time.
   */
  scannedAt: Date | null;
  payload: Record<string, unknown>;
  signature: string;
}

export interface ScanAnswer {
  clientScanId: string;
  outcome: ScanOutcome;
  reason?: ScanRefusal;
  replayed: boolean;
  ticket?: {
    ticketId: string;
    travellerName: string;
    seatNumber: string;
    legSequence: number;
    status: string;
  };
  checkedIn?: TravellerState['checkedIn'];
  booking?: {
    bookingCode: string;
    paymentStatus: string;
    totalPrice: number;
    currency: string;
    /** The driver has this booking's cash to take (cashToCollectSql); absent from scans stored before it. */
    cashToCollect?: boolean;
  } | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Published keys by key id, parsed once: a key's public half never changes once published. */
const publishedKeys = new Map<string, KeyObject>();

async function publishedKey(db: Database, keyId: unknown): Promise<KeyObject | undefined> {
  if (typeof keyId !== 'string') return undefined;
  let key = publishedKeys.get(keyId);
  if (!key) {
    const row = await findSigningKey(db, keyId);
    if (!row) return undefined;
    publishedKeys.set(keyId, (key = publicKeyFromPem(row.public_key)));
  }
  return key;
}

/** A scan whose actor has been read again: the role they hold now. */
type CheckedScan = Omit<ScanInput, 'actor'> & { actor: { staffUserId: string; role: string; name: string } };

export async function scanAtDoor(db: Database, input: ScanInput): Promise<ScanAnswer> {
  const key = await publishedKey(db, input.payload.keyId);
  const signatureValid = key !== undefined && verifyCredential(input.payload, input.signature, key);
  const requestHash = scanRequestHash(input);
  return withDeadlockRetry(() =>
    companyTransaction(db, input.companyId, 'share', async (client) => {
      const role = await lockActingMember(client, input.companyId, input.actor);
      const scan: CheckedScan = { ...input, actor: { ...input.actor, role } };
      // The company's trip (404) and, for a DRIVER, assigned to them (403), held FOR SHARE to the end.
      const trip = await lockTrip(
        client,
        { ...scan, actor: { ...scan.actor, channel: 'DRIVER_APP' } },
        'share',
      );
      if (!(await claimScan(client, input, requestHash))) return storedAnswer(client, input, requestHash);
      // A scan recorded now must be dated plausibly; a replay above is answered whatever its age. The
      // refusal rolls the claim back: nothing is stored.
      if (input.scannedAt)
        refuseImplausibleClientInstant(input.scannedAt, new Date(), 'SCANNED_AT_OUT_OF_RANGE');
      const answer = await verdict(client, scan, trip, { keyKnown: key !== undefined, signatureValid });
      await client.query(
        `update boarding_scans set ticket_id = $3, outcome = $4, reason = $5, response = $6
         where company_id = $1 and client_scan_id = $2`,
        [
          input.companyId,
          input.clientScanId,
          answer.ticket?.ticketId ?? null,
          answer.outcome,
          answer.reason ?? null,
          JSON.stringify(answer),
        ],
      );
      return answer;
    }),
  );
}

/**
 * What a replay of this scan must match: the canonical JSON of trip, payload and signature. A payload
 * canonical JSON cannot write (a number JSON.parse read as 1e400 = Infinity) is refused as /verify refuses
 * it (SIGNATURE_INVALID under a published key), stored and replayable like any scan: it is hashed as
 * JSON.stringify writes it, the non-finite numbers spelled out, under a prefix no canonical form starts with.
 */
function scanRequestHash(input: ScanInput): string {
  const request = { tripId: input.tripId, payload: input.payload, signature: input.signature };
  let text: string;
  try {
    text = canonicalJson(request);
  } catch {
    const spelled = (_key: string, value: unknown) =>
      typeof value === 'number' && !Number.isFinite(value) ? `${value}` : value;
    text = `non-canonical:${JSON.stringify(request, spelled)}`;
  }
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Claims the client scan id for this transaction: the row is written now and given its answer
 * before commit. False when the id was taken: a concurrent insert of the same id waits here until
 * the first transaction commits, then finds its row.
 */
async function claimScan(client: Queryable, input: ScanInput, requestHash: string): Promise<boolean> {
  const { rows } = await client.query(
    `insert into boarding_scans (company_id, client_scan_id, trip_id, staff_user_id, device_id, request_hash, outcome,
                                 response, scanned_at)
     values ($1, $2, $3, $4, $5, $6, 'REFUSED', '{}', $7)
     on conflict (company_id, client_scan_id) do nothing
     returning id`,
    [
      input.companyId,
      input.clientScanId,
      input.tripId,
      input.actor.staffUserId,
      input.deviceId,
      requestHash,
      input.scannedAt,
    ],
  );
  return rows.length > 0;
}

/** The answer already given to this scan id (the same scan again); another scan under the id is 409. */
async function storedAnswer(client: Queryable, input: ScanInput, requestHash: string): Promise<ScanAnswer> {
  const { rows } = await client.query<{ request_hash: string; response: ScanAnswer }>(
    'select request_hash, response from boarding_scans where company_id = $1 and client_scan_id = $2',
    [input.companyId, input.clientScanId],
  );
  const row = rows[0]!;
  if (row.request_hash !== requestHash) {
    throw new DispatchRefusal(409, 'SCAN_ID_REUSED', 'This client scan id was used for another scan');
  }
  return { ...row.response, replayed: true };
}

interface TicketRow {
  id: string;
  status: TicketStatus;
  boarding_authorized: boolean;
  signature: string | null;
  revoked: boolean;
  /**
   * Its QR had expired at the scan's moment (the time its check-in is dated at, attendanceAtSql), as
   * POST /driver/api/verify reads it then (ticketQrExpiredSql): for a live scan, now, exactly as verify
   * answers; for one queued offline, as verify would have answered when the app scanned.
   */
  expired: boolean;
  traveller_name: string;
  seat_number: string;
  leg_sequence: number;
  booking_code: string | null;
  payment_status: string | null;
  total_price: string | null;
  currency: string | null;
  cash_to_collect: boolean | null;
}

type CredentialCheck = { keyKnown: boolean; signatureValid: boolean };

async function verdict(
  client: Queryable,
  input: CheckedScan,
  trip: LockedTrip,
  credential: CredentialCheck,
): Promise<ScanAnswer> {
  const judged = await judge(client, input, credential);
  if (!judged.ticketId) return judged.answer;
  try {
    return await checkIn(client, input, trip, judged.answer, judged.ticketId);
  } catch (error) {
    if (!(error instanceof DispatchRefusal) || error.code !== 'MANIFEST_ITEM_NOT_FOUND') throw error;
    // The ticket left the trip while the check-in waited for its booking (a re-issue committed: the
    // ticket is REISSUED, only history), after nothing was written: the credential is judged again,
    // so the scan answers (and stores) the verdict a scan of it gets now, not a 404; one it still lets
    // board is no ticket of this trip any more (TICKET_NOT_FOUND).
    const again = await judge(client, input, credential);
    return again.ticketId ? { ...again.answer, reason: 'TICKET_NOT_FOUND' } : again.answer;
  }
}

/**
 * The credential judged on its ticket as it is now: the refused answer, or the answer to build on and
 * the ticket to check in when it lets its holder board.
 */
async function judge(
  client: Queryable,
  input: CheckedScan,
  credential: CredentialCheck,
): Promise<{ answer: ScanAnswer; ticketId?: string }> {
  const ticketId = input.payload.ticketId;
  const ticket =
    credential.signatureValid && typeof ticketId === 'string' && UUID.test(ticketId)
      ? await ticketOf(client, ticketId, input.companyId, input.scannedAt)
      : undefined;
  const base: ScanAnswer = { clientScanId: input.clientScanId, outcome: 'REFUSED', replayed: false };
  if (ticket) {
    base.ticket = {
      ticketId: ticket.id,
      travellerName: ticket.traveller_name,
      seatNumber: ticket.seat_number,
      legSequence: ticket.leg_sequence,
      status: ticket.status,
    };
    base.booking = ticket.booking_code
      ? {
          bookingCode: ticket.booking_code,
          paymentStatus: ticket.payment_status!,
          totalPrice: Number(ticket.total_price),
          currency: ticket.currency!,
          cashToCollect: ticket.cash_to_collect === true,
        }
      : null;
  }
  const refused = scanRefusal({
    ...credential,
    payloadTripId: input.payload.tripId,
    scanningTripId: input.tripId,
    ticket: ticket && boardingStateOf(ticket),
    presentedSignature: input.signature,
  });
  if (refused || !ticket) return { answer: { ...base, reason: refused ?? 'TICKET_NOT_FOUND' } };
  return { answer: base, ticketId: ticket.id };
}

/** The dispatch CHECK_IN of the ticket; a refusal it answers (before writing anything) becomes the scan's outcome. */
async function checkIn(
  client: Queryable,
  input: CheckedScan,
  trip: LockedTrip,
  base: ScanAnswer,
  ticketId: string,
): Promise<ScanAnswer> {
  try {
    const result = await applyDispatch(
      client,
      {
        companyId: input.companyId,
        tripId: input.tripId,
        actor: { staffUserId: input.actor.staffUserId, role: input.actor.role, channel: 'DRIVER_APP' },
        action: 'CHECK_IN',
        item: { type: 'JOURNEY_TICKET', id: ticketId },
        scan: { deviceId: input.deviceId, at: input.scannedAt },
      },
      trip,
    );
    const traveller = result.traveller!;
    return {
      ...base,
      outcome: 'CHECKED_IN',
      ticket: { ...base.ticket!, status: traveller.ticketStatus ?? 'USED' },
      checkedIn: {
        at: traveller.at,
        byStaffUserId: input.actor.staffUserId,
        byName: input.actor.name,
        source: 'DRIVER_APP',
        deviceId: input.deviceId,
      },
    };
  } catch (error) {
    if (!(error instanceof DispatchRefusal) || error.status !== 409) throw error;
    if (error.code === 'ALREADY_CHECKED_IN') {
      return {
        ...base,
        outcome: 'ALREADY_CHECKED_IN',
        // The ticket was read before the check-in that won locked it: it is USED now.
        ...(base.ticket && { ticket: { ...base.ticket, status: 'USED' } }),
        checkedIn: error.details?.checkedIn as ScanAnswer['checkedIn'],
      };
    }
    return { ...base, reason: scanRefusalOfDispatch(error.code) };
  }
}

async function ticketOf(
  client: Queryable,
  ticketId: string,
  companyId: string,
  scannedAt: Date | null,
): Promise<TicketRow | undefined> {
  const { rows } = await client.query<TicketRow>(
    `select k.id, k.status, k.boarding_authorized, k.signature, r.ticket_id is not null as revoked,
            ${ticketQrExpiredSql('k', 'scan.at')} as expired, k.traveller_name,
            k.seat_number, k.leg_sequence, b.booking_code, b.payment_status, b.total_price, b.currency,
            ${cashToCollectSql('b')} as cash_to_collect
     from journey_tickets k
     left join credential_revocations r on r.ticket_id = k.id
     left join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id and b.company_id = k.company_id
     cross join lateral (select ${attendanceAtSql('$3', 'k', 'b.created_at')} as at) scan
     where k.id = $1 and k.company_id = $2`,
    [ticketId, companyId, scannedAt],
  );
  return rows[0];
}
