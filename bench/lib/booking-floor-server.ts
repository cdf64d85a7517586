/**
 * The least a Node HTTP endpoint over the booking transaction can do: node:http, the project's
 * database module with one pool, the JSON body parsed (not validated), createBooking
 * (db/writes/bookings) called as POST /bookings calls it, for the traveller the body names (no
 * token, no session check, no rate limit, no framework, no log line), its answer written as JSON
 * in the API's shape. bench:bookings measures it beside the API and the bare transaction.
 *
 * env: DATABASE_URL, BENCH_POOL, BENCH_CAPS (the API's per-account caps, JSON), SIGNING_PRIVATE_KEY_PEM.
 */
import { createServer } from 'node:http';
import { initDatabase } from '../../db/orm.js';
import { createBooking } from '../../db/writes/bookings/index.js';
import type { AccountCaps } from '../../domain/inventory-caps.js';
import { PUBLIC_SCOPE } from '../../domain/inventory-scope.js';
import { bodyOf, listenAsFloor } from './floor-listen.js';

interface FloorBooking {
  user_id: string;
  trip_id: string;
  seat_lock_session_id: string;
  seat_numbers: string[];
  passenger_name: string;
  passenger_phone: string;
}

const db = await initDatabase({
  DATABASE_URL: process.env.DATABASE_URL!,
  DATABASE_POOL_MAX: Number(process.env.BENCH_POOL ?? 6),
});
const caps = JSON.parse(process.env.BENCH_CAPS!) as AccountCaps;
const signing = { privateKeyPem: process.env.SIGNING_PRIVATE_KEY_PEM };

async function book(body: FloorBooking) {
  const result = await createBooking(
    db,
    { userId: body.user_id, scope: PUBLIC_SCOPE, channel: 'CUSTOMER_MOBILE', caps },
    {
      seatLockSessionId: body.seat_lock_session_id,
      tripId: body.trip_id,
      seatNumbers: body.seat_numbers,
      passengerName: body.passenger_name,
      passengerPhone: body.passenger_phone,
    },
    signing,
  );
  const { booking } = result;
  const data = { booking, finalPrice: booking.total_price, discount: booking.discount };
  return { status: result.created ? 201 : 200, answer: Buffer.from(JSON.stringify({ success: true, data })) };
}

const server = createServer((request, response) => {
  void bodyOf(request)
    .then((body) => book(JSON.parse(body) as FloorBooking))
    .then(
      ({ status, answer }) => {
        response.writeHead(status, { 'content-type': 'application/json', 'content-length': answer.length });
        response.end(answer);
      },
      () => response.writeHead(500).end(),
    );
});
listenAsFloor(server, () => db.close());
