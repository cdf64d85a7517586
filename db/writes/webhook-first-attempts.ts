import {
  DELIVERY_TO_SEND_COLUMNS,
  toDeliveryToSend,
  type DeliveryToSend,
  type DeliveryToSendRow,
} from '../queries/webhooks.js';
import type { Database } from '../orm.js';

/** A claimed first attempt: what it sends, and whose it is (the relay's cap per company). */
export type FirstAttempt = DeliveryToSend & { companyId: string };

export interface FirstAttemptClaim {
  limit: number;
  leaseMs: number;
  /**
   * First attempts of one company in flight at once, counting `inFlight`: a company whose receivers
   * hang holds that many of the relay's slots at most, and the claim passes over its waiting
   * deliveries to the other companies'. Absent: no cap.
   */
  perCompany?: number;
  /** The claiming relay's first attempts in flight, per company id. */
  inFlight?: ReadonlyMap<string, number>;
}

/**
 * How many of the oldest claimable deliveries (of companies below their cap) one claim weighs: a
 * company with a larger backlog that is just below its cap fills it, and is passed over from the
 * next claim on.
 */
const CLAIM_WINDOW = 500;

/**
 * The relay's claim on the first attempts it is about to send (route RELAY), oldest first, at most
 * `perCompany` of a company with those in flight. One statement: `FOR UPDATE SKIP LOCKED` lets two
 * relays (or a relay and a late retry of its own activity) claim at once without ever taking the
 * same delivery, and the lease (`claimed_until`) keeps a claimed delivery from every other relay
 * until it passes. A worker that dies mid-batch leaves its deliveries PENDING and claimed; once the
 * lease has passed the next sweep claims and sends them again, with the same Webhook-Id (at least
 * once; receivers deduplicate on it).
 */
export async function claimFirstAttempts(db: Database, claim: FirstAttemptClaim): Promise<FirstAttempt[]> {
  const inFlight = [...(claim.inFlight ?? new Map<string, number>())];
  return db.transaction(async (client) => {
    const { rows } = await client.query<DeliveryToSendRow & { company_id: string }>(
      `with busy as (
         select * from unnest($3::uuid[], $4::int[]) as b(company_id, in_flight)),
       waiting as (
         select w.id, w.created_at,
                row_number() over (partition by w.company_id order by w.created_at) + coalesce(b.in_flight, 0) as nth
         from (select id, company_id, created_at from webhook_deliveries
               where status = 'PENDING' and workflow_started_at is null and route = 'RELAY'
                 and (claimed_until is null or claimed_until < now())
                 and company_id not in (select company_id from busy where in_flight >= $5)
               order by created_at limit $6) w
         left join busy b on b.company_id = w.company_id),
       chosen as (select id from waiting where nth <= $5 order by created_at limit $1),
       claimed as (
         select d.id from webhook_deliveries d
         where d.id in (select id from chosen) and d.status = 'PENDING' and d.workflow_started_at is null
           and d.route = 'RELAY' and (d.claimed_until is null or d.claimed_until < now())
         for update of d skip locked),
       leased as (
         update webhook_deliveries d set claimed_until = now() + make_interval(secs => $2::float8 / 1000)
         from claimed where d.id = claimed.id returning d.*)
       select ${DELIVERY_TO_SEND_COLUMNS}, d.company_id
       from leased d
       join webhook_subscriptions s on s.id = d.subscription_id
       join outbox_events e on e.id = d.outbox_event_id
       order by d.created_at`,
      [
        claim.limit,
        claim.leaseMs,
        inFlight.map(([companyId]) => companyId),
        inFlight.map(([, count]) => count),
        claim.perCompany ?? 1_000_000,
        Math.max(CLAIM_WINDOW, claim.limit),
      ],
    );
    return rows.map((row) => ({ ...toDeliveryToSend(row), companyId: row.company_id }));
  });
}
