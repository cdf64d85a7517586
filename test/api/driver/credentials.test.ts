import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EXTERNAL_PRIVATE_KEY,
  keyIdOf,
  revokeCredentials,
  rotateSigningKey,
  signTicketsOf,
} from '../../../db/writes/boarding-credentials.js';
import { revocationPage } from '../../../db/queries/boarding-credentials.js';
import { verifyCredential } from '../../../domain/boarding-credential.js';
import { atDamascus, createCorridor, createTrip, futureDay } from '../../support/factories.js';
import { assignDriver } from '../../support/operations.js';
import { useTestApp } from '../../support/harness.js';
import {
  confirmedJourneyRows,
  createJourneyRows,
  journeyTripOf,
  staffSession,
  type JourneyTrip,
} from '../../support/journey-rows.js';

interface Credential {
  ticketId: string;
  payload: Record<string, unknown>;
  signature: string;
  keyId: string;
}

describe('boarding credentials for the driver app', () => {
  const app = useTestApp();
  let trip: JourneyTrip;
  let otherTrip: JourneyTrip;
  let foreignTrip: JourneyTrip;
  let ownerUserId: string;
  let driverToken: string;
  let corridor: Awaited<ReturnType<typeof createCorridor>>;

  /** A confirmed journey on `onTrip` and the credentials its tickets carry. */
  async function confirmedJourney(onTrip: JourneyTrip, travellers = ['Rami Haddad']): Promise<Credential[]> {
    const rows = await confirmedJourneyRows(app.db, { ownerUserId, trip: onTrip, travellers });
    return app.db.query<Credential>(
      `select id as "ticketId", payload, signature, key_id as "keyId" from journey_tickets where journey_id = $1
       order by traveller_index`,
      [rows.journeyId],
    );
  }

  function verify(credential: { payload: unknown; signature: string }, tripId: string, token = driverToken) {
    return app.request('/driver/api/verify', {
      method: 'POST',
      token,
      json: { payload: credential.payload, signature: credential.signature, tripId },
    });
  }

  beforeAll(async () => {
    corridor = await createCorridor(app.db);
    trip = journeyTripOf(corridor);
    const second = await createTrip(app.db, {
      companyId: corridor.company.id,
      busId: corridor.bus.id,
      departAt: atDamascus(futureDay(4), '09:00'),
      calls: [
        { stop: corridor.originStop, at: 0 },
        { stop: corridor.destinationStop, at: 180 },
      ],
    });
    otherTrip = { id: second.id, companyId: corridor.company.id, stopCallIds: second.stopCallIds };
    foreignTrip = journeyTripOf(await createCorridor(app.db));
    ownerUserId = (await app.signIn()).userId;
    const driver = await staffSession(app.db, app.config, corridor.company.id, 'DRIVER');
    driverToken = driver.token;
    for (const tripId of [trip.id, otherTrip.id]) await assignDriver(app.db, tripId, driver.staffUserId);
  });

  it('signs each ticket of a confirmed journey over its canonical payload, with no secret in it', async () => {
    const [first, second] = await confirmedJourney(trip, ['Rami Haddad', 'Lina Haddad']);
    expect(first!.payload).toMatchObject({
      v: 1,
      ticketId: first!.ticketId,
      tripId: trip.id,
      companyId: trip.companyId,
      legSequence: 1,
      travellerName: 'Rami Haddad',
      seatNumber: '1A',
      boardStopCallId: trip.stopCallIds[0],
      alightStopCallId: trip.stopCallIds[trip.stopCallIds.length - 1],
      keyId: first!.keyId,
    });
    expect(JSON.stringify(first!.payload)).not.toMatch(/\+963|price|owner|phone/i);
    expect(second!.payload).toMatchObject({ travellerName: 'Lina Haddad', seatNumber: '2A' });
    const [ticket] = await app.db.query<{ status: string; boarding_authorized: boolean; issued_at: string }>(
      'select status, boarding_authorized, issued_at from journey_tickets where id = $1',
      [first!.ticketId],
    );
    expect(ticket).toMatchObject({ status: 'VALID', boarding_authorized: true });
    expect(first!.payload.issuedAt).toBe(new Date(ticket!.issued_at).toISOString());
  });

  it('lets a ticket confirmed through the customer flow board, and no other trip', async () => {
    const traveller = await app.signIn();
    const auth = { Authorization: `Bearer ${traveller.token}` };
    const quote = await app.request('/api/journeys/quote', {
      method: 'POST',
      headers: auth,
      json: {
        party_size: 1,
        legs: [
          {
            trip_id: trip.id,
            board_stop_call_id: trip.stopCallIds[0],
            alight_stop_call_id: trip.stopCallIds[2],
          },
        ],
        resources: [{ leg_sequence: 1, resource_code: 'SEAT', quantity: 1 }],
        idempotency_key: `driver-${Date.now()}`,
      },
    });
    expect(quote.status).toBe(200);
    const { journey_id: journeyId, quote_id: quoteId } = quote.body.data;
    const hold = await app.request(`/api/journeys/${journeyId}/hold`, {
      method: 'POST',
      headers: auth,
      json: { quote_id: quoteId },
    });
    expect(hold.status).toBe(200);
    const confirm = await app.request(`/api/journeys/${journeyId}/confirm`, {
      method: 'POST',
      headers: auth,
      json: {
        quote_id: quoteId,
        hold_batch_id: hold.body.data.holdBatchId,
        travellers: [{ name: 'Samer Darwish' }],
        idempotency_key: `driver-confirm-${Date.now()}`,
      },
    });
    expect(confirm.status).toBe(200);
    expect(confirm.body.data.confirmation.status).toBe('CONFIRMED');
    const [ticket] = confirm.body.data.tickets;
    expect(ticket).toMatchObject({ status: 'VALID', boarding_authorized: true });

    const boarding = await verify({ payload: ticket.payload, signature: ticket.signature }, trip.id);
    expect(boarding.body.data).toMatchObject({
      valid: true,
      ticket: { ticketId: ticket.id, travellerName: 'Samer Darwish', seatNumber: ticket.seat_number },
    });
    const elsewhere = await verify({ payload: ticket.payload, signature: ticket.signature }, otherTrip.id);
    expect(elsewhere.body.data).toMatchObject({ valid: false, reason: 'WRONG_TRIP' });
  });

  describe('a QR that has expired', () => {
    /** A trip of its own, assigned to the driver, with one confirmed traveller boarding at its first stop. */
    async function boardedTrip(): Promise<{ tripId: string; credential: Credential }> {
      const own = await createTrip(app.db, {
        companyId: corridor.company.id,
        busId: corridor.bus.id,
        departAt: new Date(Date.now() + 30 * 60_000),
        calls: [
          { stop: corridor.originStop, at: 0 },
          { stop: corridor.destinationStop, at: 180 },
        ],
      });
      const [driver] = await app.db.query<{ driver_id: string }>(
        'select driver_id from trips where id = $1',
        [trip.id],
      );
      await assignDriver(app.db, own.id, driver!.driver_id);
      const [credential] = await confirmedJourney({
        id: own.id,
        companyId: corridor.company.id,
        stopCallIds: own.stopCallIds,
      });
      return { tripId: own.id, credential: credential! };
    }

    /** What a verify may not change: the ticket, its revocation and the operations log. */
    const ticketState = (ticketId: string) =>
      app.db.query(
        `select k.status, k.attendance, k.boarding_authorized, k.signature,
                (select count(*)::int from credential_revocations r where r.ticket_id = k.id) as revocations,
                (select count(*)::int from trip_operation_events e where e.manifest_item_id = k.id) as events
         from journey_tickets k where k.id = $1`,
        [ticketId],
      );

    it('refuses a credential EXPIRED once its trip arrived, and changes nothing', async () => {
      const { tripId, credential } = await boardedTrip();
      expect((await verify(credential, tripId)).body.data).toMatchObject({ valid: true });
      await app.db.query(
        "update trips set status = 'ARRIVED', actual_departure_at = now(), actual_arrival_at = now() where id = $1",
        [tripId],
      );
      const before = await ticketState(credential.ticketId);
      const response = await verify(credential, tripId);
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({
        valid: false,
        reason: 'EXPIRED',
        ticket: { ticketId: credential.ticketId, status: 'VALID' },
      });
      expect(await ticketState(credential.ticketId)).toEqual(before);
    });

    it('refuses a first-stop credential EXPIRED once the bus has left that stop', async () => {
      const { tripId, credential } = await boardedTrip();
      await app.db.query("update trips set status = 'DEPARTED', actual_departure_at = now() where id = $1", [
        tripId,
      ]);
      const before = await ticketState(credential.ticketId);
      const response = await verify(credential, tripId);
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toMatchObject({ valid: false, reason: 'EXPIRED' });
      expect(await ticketState(credential.ticketId)).toEqual(before);
    });
  });

  it('publishes the signing key so a scanner can verify a ticket offline', async () => {
    const [credential] = await confirmedJourney(trip);
    const response = await app.request('/driver/api/keys');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const key = response.body.data.keys.find(
      (candidate: { keyId: string }) => candidate.keyId === credential!.keyId,
    );
    expect(key).toMatchObject({ algorithm: 'Ed25519', status: 'ACTIVE', retiredAt: null });
    expect(key.publicKeyJwk).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      kid: credential!.keyId,
      alg: 'EdDSA',
    });
    expect(JSON.stringify(response.body)).not.toMatch(/PRIVATE KEY|"d":/);
    const scannerKey = createPublicKey({ key: key.publicKeyJwk, format: 'jwk' });
    expect(verifyCredential(credential!.payload, credential!.signature, scannerKey)).toBe(true);
    expect(
      verifyCredential({ ...credential!.payload, seatNumber: '9C' }, credential!.signature, scannerKey),
    ).toBe(false);
  });

  it('lets a valid ticket board its own trip', async () => {
    const [credential] = await confirmedJourney(trip, ['Yara Khoury']);
    const response = await verify(credential!, trip.id);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      valid: true,
      ticket: {
        ticketId: credential!.ticketId,
        tripId: trip.id,
        legSequence: 1,
        travellerName: 'Yara Khoury',
        seatNumber: '1A',
        status: 'VALID',
      },
    });
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });

  it('refuses a tampered payload or signature and reveals nothing about the ticket', async () => {
    const [credential] = await confirmedJourney(trip);
    const tampered = await verify(
      { ...credential!, payload: { ...credential!.payload, seatNumber: '7D' } },
      trip.id,
    );
    expect(tampered.body.data).toEqual({ valid: false, reason: 'SIGNATURE_INVALID' });
    const otherSignature = (await confirmedJourney(trip))[0]!.signature;
    const swapped = await verify({ payload: credential!.payload, signature: otherSignature }, trip.id);
    expect(swapped.body.data).toEqual({ valid: false, reason: 'SIGNATURE_INVALID' });
  });

  it('refuses a ticket for another trip of the company', async () => {
    const [credential] = await confirmedJourney(otherTrip);
    const response = await verify(credential!, trip.id);
    expect(response.body.data).toMatchObject({
      valid: false,
      reason: 'WRONG_TRIP',
      ticket: { tripId: otherTrip.id },
    });
  });

  it('refuses a credential signed by a key that was never published', async () => {
    const [credential] = await confirmedJourney(trip);
    const response = await verify(
      { ...credential!, payload: { ...credential!.payload, keyId: 'not-a-key' } },
      trip.id,
    );
    expect(response.body.data).toEqual({ valid: false, reason: 'UNKNOWN_KEY' });
  });

  it('refuses a revoked credential and lists it for offline scanners', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const [credential] = await confirmedJourney(trip);
    await app.db.transaction(async (client) => {
      await client.query(
        `update journey_tickets set status = 'CANCELLED', boarding_authorized = false where id = $1`,
        [credential!.ticketId],
      );
      expect(await revokeCredentials(client, [credential!.ticketId], 'JOURNEY_CANCELLED')).toBe(1);
      expect(await revokeCredentials(client, [credential!.ticketId], 'JOURNEY_CANCELLED')).toBe(0);
    });
    const response = await verify(credential!, trip.id);
    expect(response.body.data).toMatchObject({
      valid: false,
      reason: 'REVOKED',
      ticket: { status: 'CANCELLED' },
    });

    const list = await app.request(`/driver/api/revocations?since=${encodeURIComponent(before)}`, {
      token: driverToken,
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(list.headers.get('vary')).toMatch(/Authorization/i);
    expect(list.body.data.revocations).toContainEqual({
      ticketId: credential!.ticketId,
      keyId: credential!.keyId,
      revokedAt: expect.any(String),
    });
    expect(Date.parse(list.body.data.nextSince)).toBeLessThan(Date.parse(list.body.data.asOf));
    const later = await app.request(
      `/driver/api/revocations?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token: driverToken },
    );
    expect(later.body.data.revocations).toEqual([]);
    // limit takes decimal digits only (Number() would read 1e1 as 10).
    for (const limit of ['1e1', '0x10', '10.0']) {
      const refused = await app.request(
        `/driver/api/revocations?since=${encodeURIComponent(before)}&limit=${limit}`,
        { token: driverToken },
      );
      expect(refused.status, limit).toBe(400);
    }
  });

  it('pages the revocation list past one revocation of more tickets than a page holds', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const credentials = await confirmedJourney(trip, ['Rami Haddad', 'Lina Haddad', 'Samer Darwish']);
    const ticketIds = credentials.map((credential) => credential.ticketId);
    // One transaction (a trip cancelled) revokes them all at one instant: more than a page of limit=2.
    await app.db.transaction((client) => revokeCredentials(client, ticketIds, 'TRIP_CANCELLED'));

    // A scanner follows the documented protocol: since for the first poll, then cursor = nextCursor.
    const seen = new Set<string>();
    let from = `since=${encodeURIComponent(before)}`;
    let pages = 0;
    for (; pages < 6; pages++) {
      const page = await app.request(`/driver/api/revocations?${from}&limit=2`, { token: driverToken });
      expect(page.status, page.text).toBe(200);
      for (const entry of page.body.data.revocations) seen.add(entry.ticketId);
      if (!page.body.data.hasMore) break;
      from = `cursor=${encodeURIComponent(page.body.data.nextCursor)}`;
    }
    const unseen = ticketIds.filter((id) => !seen.has(id));
    expect(unseen, `pages read: ${pages}`).toEqual([]);
    expect(pages).toBeLessThan(6);

    // A cursor the list never handed out, or one beside since, is refused.
    const cursor = `cursor=${encodeURIComponent(Buffer.from('2026-12-01T07:55:00Z/x').toString('base64url'))}`;
    for (const query of [cursor, `${from}&since=${encodeURIComponent(before)}`]) {
      const refused = await app.request(`/driver/api/revocations?${query}`, { token: driverToken });
      expect([refused.status, refused.body.errorCode], query).toEqual([400, 'VALIDATION_FAILED']);
    }
  });

  it("reads a page of a company's revocations in list order from an index, never sorting the whole list", async () => {
    const company = corridor.company.id;
    const pages = [
      revocationPage(company, null, 100),
      revocationPage(company, { at: new Date().toISOString(), afterTicketId: null }, 100),
      revocationPage(company, { at: new Date().toISOString(), afterTicketId: crypto.randomUUID() }, 100),
    ];
    for (const [statement, parameters] of pages) {
      const plan = await app.db.transaction(async (client) => {
        // The test database's list is short, where a scan and a sort cost least; a driver's is not.
        await client.query('set local enable_seqscan = off');
        await client.query('set local enable_bitmapscan = off');
        const { rows } = await client.query(`explain (format json) ${statement}`, parameters);
        return JSON.stringify(rows[0]);
      });
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).toContain('credential_revocations_company_list_idx');
    }
  });

  it('refuses a ticket that is no longer valid even when nobody revoked it', async () => {
    const [credential] = await confirmedJourney(trip);
    await app.db.query(`update journey_tickets set status = 'USED' where id = $1`, [credential!.ticketId]);
    const response = await verify(credential!, trip.id);
    expect(response.body.data).toMatchObject({
      valid: false,
      reason: 'TICKET_NOT_VALID',
      ticket: { status: 'USED' },
    });
  });

  it('keeps tickets signed before a key rotation valid, and signs new ones with the new key', async () => {
    const [old] = await confirmedJourney(trip);
    const newKeyId = await app.db.transaction((client) => rotateSigningKey(client));
    expect(newKeyId).not.toBe(old!.keyId);
    const [fresh] = await confirmedJourney(trip);
    expect(fresh!.keyId).toBe(newKeyId);

    const keys = (await app.request('/driver/api/keys')).body.data.keys as {
      keyId: string;
      status: string;
      retiredAt: string | null;
    }[];
    expect(keys.find((key) => key.keyId === old!.keyId)).toMatchObject({
      status: 'RETIRED',
      retiredAt: expect.any(String),
    });
    expect(keys.find((key) => key.keyId === newKeyId)).toMatchObject({ status: 'ACTIVE' });
    expect(keys.filter((key) => key.status === 'ACTIVE')).toHaveLength(1);

    expect((await verify(old!, trip.id)).body.data).toMatchObject({ valid: true });
    expect((await verify(fresh!, trip.id)).body.data).toMatchObject({ valid: true });
  });

  it('signs with the key from SIGNING_PRIVATE_KEY_PEM and stores only its public half', async () => {
    const { journeyId, ticketIds } = await createJourneyRows(app.db, {
      ownerUserId,
      trip,
      travellers: ['Dana Issa'],
    });
    const configured = generateKeyPairSync('ed25519');
    const privateKeyPem = configured.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Inside one transaction that is rolled back: the run's other files keep signing with the shared key.
    const client = await app.db.pool.connect();
    try {
      await client.query('begin');
      const keyId = await rotateSigningKey(client, { privateKeyPem });
      expect(keyId).toBe(keyIdOf(configured.publicKey));
      const { rows } = await client.query<{ private_key: string; public_key: string }>(
        'select private_key, public_key from signing_keys where key_id = $1',
        [keyId],
      );
      expect(rows[0]!.private_key).toBe(EXTERNAL_PRIVATE_KEY);
      expect(rows[0]!.public_key).toBe(
        configured.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      );

      const scope = { kind: 'JOURNEY' as const, id: journeyId };
      // Another configured key takes over (signing-key-takeover.test.ts); none configured, nothing signs.
      await expect(signTicketsOf(client, scope)).rejects.toThrow(/SIGNING_PRIVATE_KEY_PEM/);
      expect(await signTicketsOf(client, scope, { privateKeyPem })).toEqual({ signed: 1, keyId });
      const { rows: tickets } = await client.query<{ payload: Record<string, unknown>; signature: string }>(
        'select payload, signature from journey_tickets where id = $1',
        [ticketIds[0]],
      );
      expect(verifyCredential(tickets[0]!.payload, tickets[0]!.signature, configured.publicKey)).toBe(true);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it("admits the company's drivers and managers, and nobody else", async () => {
    const [credential] = await confirmedJourney(trip);
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    expect((await verify(credential!, trip.id, dispatcher.token)).body.data.valid).toBe(true);

    const noToken = await app.request('/driver/api/verify', {
      method: 'POST',
      json: { ...credential!, tripId: trip.id },
    });
    expect(noToken.status).toBe(401);
    expect(noToken.body.errorCode).toBe('AUTH_REQUIRED');
    expect((await verify(credential!, trip.id, 'not-a-session')).body.errorCode).toBe('INVALID_CREDENTIAL');
    const traveller = await app.tokenFor({ kind: 'PRODUCTION' });
    expect((await verify(credential!, trip.id, traveller)).status).toBe(401);

    const staff = await staffSession(app.db, app.config, trip.companyId, 'STAFF');
    const refused = await verify(credential!, trip.id, staff.token);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('ROLE_NOT_ALLOWED');

    const foreignDriver = await staffSession(app.db, app.config, foreignTrip.companyId, 'DRIVER');
    const foreign = await verify(credential!, trip.id, foreignDriver.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errorCode).toBe('TRIP_NOT_FOUND');

    // Another driver of the company works only the trips assigned to them, as manifest and scan do.
    const unassigned = await staffSession(app.db, app.config, trip.companyId, 'DRIVER');
    const notTheirs = await verify(credential!, trip.id, unassigned.token);
    expect([notTheirs.status, notTheirs.body.errorCode]).toEqual([403, 'TRIP_NOT_ASSIGNED']);
  });

  it("tells a driver nothing of another company's ticket presented at the door", async () => {
    const [theirs] = await confirmedJourney(foreignTrip);
    const answer = await verify(theirs!, trip.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toEqual({ valid: false, reason: expect.any(String) });
  });

  it('answers a malformed verify request with 400', async () => {
    const [credential] = await confirmedJourney(trip);
    const cases = [
      { payload: credential!.payload, signature: credential!.signature },
      { payload: credential!.payload, signature: credential!.signature, tripId: 'trip-1' },
      { payload: 'text', signature: credential!.signature, tripId: trip.id },
      { payload: credential!.payload, signature: credential!.signature, tripId: trip.id, seat: '1A' },
    ];
    for (const json of cases) {
      const response = await app.request('/driver/api/verify', { method: 'POST', token: driverToken, json });
      expect(response.status).toBe(400);
      expect(response.body.errorCode).toBe('VALIDATION_FAILED');
    }
  });
});
