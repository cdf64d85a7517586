import { describe, expect, it } from 'vitest';
import { isReservedDemoPhone, normalisePhone } from '../../domain/phone.js';
import { useTestApp } from '../support/harness.js';

/**
 * The OpenAPI document states the rules the server enforces, in terms any client (or a fuzzer in
 * another language) reads the same way: phone patterns with a demo example, unique arrays,
 * exactly-one-of rules, the answers the app gives before a route runs.
 */

type Json = Record<string, any>;

describe('OpenAPI document: the rules it states are the rules the server keeps', () => {
  const app = useTestApp();
  let document: Json;
  const schemaAt = (ref: string): Json => document.components.schemas[ref.split('/').pop()!];
  const bodyOf = (path: string, method: string): Json => {
    const schema = document.paths[path][method].requestBody.content['application/json'].schema;
    return schema.$ref ? schemaAt(schema.$ref) : schema;
  };

  it('serves the document', async () => {
    const response = await app.request('/api/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
  });

  it('gives every phone field a pattern the server enforces, with a demo number pre-launch accepts', async () => {
    const phone = bodyOf('/api/auth/customer/send-otp', 'post').properties.phone;
    const pattern = new RegExp(phone.pattern);
    expect(phone.examples.length).toBeGreaterThan(0);
    for (const example of phone.examples) {
      expect(pattern.test(example)).toBe(true);
      expect(isReservedDemoPhone(normalisePhone(example)!)).toBe(true);
    }
    for (const [path, field] of [
      ['/api/auth/customer/complete-phone', 'phone'],
      ['/api/auth/customer/verify-otp', 'phone'],
    ] as const)
      expect(bodyOf(path, 'post').properties[field].pattern, path).toBe(phone.pattern);
    const settingsPhone = bodyOf('/dashboard/api/settings', 'patch').properties.phone;
    expect(JSON.stringify(settingsPhone)).toContain(JSON.stringify(phone.pattern));

    // A person's phone on the booking routes: one pattern, the + forms sign-in reads (its trunk 0
    // after +963 too), white space around them; a + number sign-in refuses is outside it.
    const passengerPhone = bodyOf('/api/bookings', 'post').properties.passenger_phone;
    expect(bodyOf('/api/bookings/round-trip', 'post').properties.passenger_phone.pattern).toBe(
      passengerPhone.pattern,
    );
    expect(schemaAt('#/components/schemas/JourneyTraveller').properties.phone.pattern).toBe(
      passengerPhone.pattern,
    );
    const personPattern = new RegExp(passengerPhone.pattern);
    for (const example of passengerPhone.examples)
      expect(isReservedDemoPhone(normalisePhone(example)!) && personPattern.test(example)).toBe(true);
    for (const text of ['+963944123456', ' +9630944123456 ', '+96112345678'])
      expect(personPattern.test(text), text).toBe(true);
    for (const text of ['0944123456', '+96300944123456', '+9631234567', '+963 944 123 456'])
      expect(personPattern.test(text), text).toBe(false);

    // Outside the pattern: refused with 400 INVALID_PHONE before anything is sent or stored.
    expect(pattern.test('0')).toBe(false);
    const refused = await app.request('/api/auth/customer/send-otp', {
      method: 'POST',
      json: { phone: '0' },
    });
    expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({
      status: 400,
      errorCode: 'INVALID_PHONE',
    });
    // The example itself signs in in pre-launch mode (the test stack's mode).
    const sent = await app.request('/api/auth/customer/send-otp', {
      method: 'POST',
      json: { phone: phone.examples[0], method: 'sms' },
    });
    expect(sent.status).toBe(200);
  });

  it('marks arrays that refuse duplicates uniqueItems', () => {
    expect(bodyOf('/api/seat-locks', 'post').properties.seat_numbers.uniqueItems).toBe(true);
    expect(bodyOf('/api/journey-orders/{orderId}/hold', 'post').properties.journey_ids.uniqueItems).toBe(
      true,
    );
    expect(bodyOf('/dashboard/api/trip-schedules', 'post').properties.days_of_week.uniqueItems).toBe(true);
  });

  it('states exactly one origin and one destination of a journey search', () => {
    const search = bodyOf('/api/journeys/search', 'post');
    expect(search.allOf).toEqual([
      { oneOf: [{ required: ['origin_city_id'] }, { required: ['origin_stop_id'] }] },
      { oneOf: [{ required: ['destination_city_id'] }, { required: ['destination_stop_id'] }] },
    ]);
  });

  it('lists every content type an answer comes in: the report as JSON, CSV or PDF', () => {
    const ok = document.paths['/dashboard/api/reports'].get.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['application/json', 'text/csv', 'application/pdf']);
    expect(ok.content['application/json'].schema.properties.data.properties.format.const).toBe('json');
    expect(ok.content['application/pdf'].schema.format).toBe('binary');
  });

  it('describes the body of every file answered: receipts, documents and CSV exports', () => {
    const contentOf = (path: string) => document.paths[path].get.responses['200'].content;
    expect(contentOf('/dashboard/api/payments/receipts/{source}/{id}')).toEqual({
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    });
    expect(contentOf('/dashboard/api/payments/cash-shifts/{id}/csv')).toEqual({
      'text/csv': { schema: { type: 'string' } },
    });
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      const ok = item.get?.responses['200'];
      if (ok) expect(ok.content, `GET ${path}: a 200 with a body`).toBeDefined();
    }
  });

  it("states the dashboard bodies' rules between fields", () => {
    // A manual adjustment moves points: never 0.
    const adjust = bodyOf('/dashboard/api/loyalty/accounts/{id}/adjust', 'post');
    expect(adjust.properties.points.not).toEqual({ const: 0 });
    // A layout under exactly one of its two names.
    expect(bodyOf('/dashboard/api/buses/{id}/layout', 'put').oneOf).toEqual([
      { required: ['layoutDocument'] },
      { required: ['layout_document'] },
    ]);
    // The layout rules JSON Schema can state: the version, rotations, a seat's identity, at least one seat.
    const layout = schemaAt(bodyOf('/dashboard/api/buses/{id}/layout', 'put').properties.layoutDocument.$ref);
    expect(layout.properties.schemaVersion.const).toBe(1);
    expect(layout.properties.elements.contains).toEqual({ properties: { type: { const: 'seat' } } });
    const element = layout.properties.elements.items;
    expect(element.properties.rotation.enum).toEqual([0, 90, 180, 270]);
    expect(element.anyOf[1].required).toEqual(['seatId', 'seatNumber']);
    // A delay carries a reason and its minutes, a cancellation a reason, and delay_minutes goes with a delay only.
    for (const [path, method, field] of [
      ['/dashboard/api/trips/bulk', 'post', 'action'],
      ['/dashboard/api/trips/{id}', 'patch', 'status'],
    ] as const) {
      const body = bodyOf(path, method);
      const [delay, cancel, other] = body.oneOf;
      expect(delay.required).toEqual(['reason', 'delay_minutes']);
      expect(cancel.required).toEqual(['reason']);
      expect(cancel.not).toEqual({ required: ['delay_minutes'] });
      expect(other.not).toEqual({ required: ['delay_minutes'] });
      // Every action falls in exactly one branch.
      const named = body.oneOf.flatMap((branch: Json) => branch.properties[field].enum);
      expect(named.sort(), path).toEqual([...body.properties[field].enum].sort());
    }
  });

  it("states each loyalty reward type's fields", () => {
    for (const [path, method] of [
      ['/dashboard/api/loyalty/rewards', 'post'],
      ['/dashboard/api/loyalty/rewards/{id}', 'put'],
    ] as const) {
      const [discount, freeTrip, merchandise] = bodyOf(path, method).oneOf;
      expect(discount.properties.type).toEqual({ const: 'discount' });
      // Exactly one of a percent and an amount.
      expect(discount.oneOf.map((branch: Json) => branch.required)).toEqual([
        ['discountPercent'],
        ['discountAmount'],
      ]);
      expect(discount.oneOf[0].properties.discountPercent).toEqual({ not: { type: 'null' } });
      expect(freeTrip).toEqual({
        required: ['freeSeats'],
        properties: { type: { const: 'free_trip' }, freeSeats: { not: { type: 'null' } } },
      });
      expect(merchandise.properties.type).toEqual({ const: 'merchandise' });
      for (const field of ['discountPercent', 'discountAmount', 'maxDiscount', 'freeSeats', 'minSubtotal'])
        expect(merchandise.properties[field], field).toEqual({ type: 'null' });
      expect(merchandise.properties.routeIds).toEqual({ maxItems: 0 });
    }
  });

  it("states a route's first stop and the running time of the later ones", () => {
    const stops = bodyOf('/dashboard/api/routes', 'post').properties.stops;
    const [first] = stops.prefixItems;
    expect(first.allOf[1].properties).toEqual({
      running_minutes: { const: 0 },
      dwell_minutes: { const: 0 },
      fare_share_bp: { const: 0 },
    });
    expect(stops.items.allOf[1]).toEqual({
      required: ['running_minutes'],
      properties: { running_minutes: { minimum: 1 } },
    });
    // Both still are a stop as the schema defines it.
    expect(schemaAt(first.allOf[0].$ref).required).toEqual(['stop_id', 'fare_share_bp']);
    expect(stops.items.allOf[0]).toEqual(first.allOf[0]);
  });

  it('writes request patterns portably: ASCII digits, no U+0000 in free text', () => {
    const requestSide = JSON.stringify(
      Object.values<Json>(document.paths).flatMap((item) =>
        Object.values(item).map((operation: Json) => [operation.parameters, operation.requestBody]),
      ),
    );
    expect(requestSide).not.toContain('\\\\d');
    const name = bodyOf('/api/bookings', 'post').properties.passenger_name;
    expect(new RegExp(name.pattern).test('Rana')).toBe(true);
    expect(new RegExp(name.pattern).test('   ')).toBe(false);
    expect(new RegExp(name.pattern).test('Ra\u202ena')).toBe(false);
    const email = bodyOf('/api/waitlist', 'post').properties.email;
    expect(new RegExp(email.pattern).test(`${'a'.repeat(65)}@example.com`)).toBe(false);
  });

  it('lists the answers the app gives before a route runs on every operation they apply to', () => {
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        // The payment provider's webhook reads nothing of a request: nothing in it is refused.
        const unread = path === '/api/payments/webhook/{provider}';
        expect(Object.keys(operation.responses).includes('400'), `${method} ${path}`).toBe(!unread);
        // 503: PostgreSQL or Temporal not answering (any operation), or a maintenance window (writes).
        expect(Object.keys(operation.responses), `${method} ${path}`).toContain('503');
      }
    }
  });

  it('lists 413 and 415 on every write, since every write body is read, one taking no fields too', async () => {
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const method of ['post', 'put', 'patch', 'delete'].filter((name) => item[name])) {
        // The payment provider's webhook reads its own body (any payload gets the route's answer).
        if (path === '/api/payments/webhook/{provider}') continue;
        expect(Object.keys(item[method].responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['413', '415']),
        );
      }
    }
    // A write that takes no fields, sent a body all the same, before any credential is looked at.
    const sent = { method: 'DELETE', headers: { 'Content-Type': 'text/plain' }, body: 'x' };
    const plain = await app.request('/dashboard/api/api-keys/00000000-0000-4000-8000-000000000000', sent);
    expect([plain.status, plain.body.errorCode]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('tells cookie callers of every write that needs X-CSRF-Token to send it, admin and dashboard included', () => {
    const schemes = document.components.securitySchemes;
    for (const name of ['travellerCookie', 'companySession', 'adminSession']) {
      expect(schemes[name].description, name).toContain('X-CSRF-Token');
    }
    // The rule itself: test/api/admin/admins.test.ts and test/api/dashboard/auth.test.ts refuse a write without it.
  });

  it('answers OPTIONS on a fixed path with its own methods only', async () => {
    const response = await app.request('/dashboard/api/trips/bulk', { method: 'OPTIONS' });
    expect(response.headers.get('allow')).toBe('POST');
    const documented = Object.keys(document.paths['/dashboard/api/trips/bulk']).map((m) => m.toUpperCase());
    expect(documented).toEqual(['POST']);
  });

  it('states the e-mail rule the server keeps, internationalised domains included', async () => {
    const email = bodyOf('/api/waitlist', 'post').properties.email;
    expect(email.format).toBe('idn-email');
    const pattern = new RegExp(email.pattern);
    for (const [address, accepted] of [
      ['layla@example.com', true],
      ['layla@example.xn--ogbpf8fl', true],
      ['layla@Example.XN--OGBPF8FL', true],
      ['layla@مثال.سورية', true],
      ['layla@وزارة-2.example', true],
      ['layla@example.c0m', false],
      ['layla@bücher.example', false],
      ['layla@مثال-.سورية', false],
      ['layla@مـثال.com', false],
      ['رنا@example.com', false],
    ] as const) {
      expect(pattern.test(address), address).toBe(accepted);
      const response = await app.request('/api/waitlist', { method: 'POST', json: { email: address } });
      expect(response.status === 400, `${address}: ${response.status} ${response.text}`).toBe(!accepted);
    }
  });

  it('refuses an e-mail address with more than 64 characters before the @', async () => {
    const response = await app.request('/api/waitlist', {
      method: 'POST',
      json: { email: `${'a'.repeat(65)}@example.com` },
    });
    expect(response.status).toBe(400);
  });
});
