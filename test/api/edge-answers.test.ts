import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCompany } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';
import { createStaffMember, STAFF_PASSWORD, staffLogin } from '../support/staff.js';

/** Small answers HTTP defines, given before or beside any route (stop 68's HTTP review). */
describe('answers before or beside the routes', () => {
  const app = useTestApp();

  it('keeps every answer under /share private and unindexed, a path that names no grant included', async () => {
    const grant = '0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c';
    const answers: Record<string, unknown> = {};
    for (const [method, path] of [
      ['GET', `/share/${grant}`],
      ['GET', '/share/not-a-grant'],
      ['GET', '/share/assets/missing.js'],
      ['POST', `/share/${grant}`],
    ] as const) {
      const response = await app.request(path, { method });
      answers[`${method} ${path}`] = [
        response.status,
        response.headers.get('x-robots-tag'),
        response.headers.get('cache-control'),
      ];
    }
    const hidden = ['noindex, nofollow', 'private, no-store'];
    expect(answers).toEqual({
      [`GET /share/${grant}`]: [200, ...hidden],
      'GET /share/not-a-grant': [404, ...hidden],
      'GET /share/assets/missing.js': [404, ...hidden],
      [`POST /share/${grant}`]: [405, ...hidden],
    });
  });

  it('refuses a body in a content coding with 415 naming the coding it takes, and stores nothing', async () => {
    const company = await createCompany(app.db);
    const owner = await createStaffMember(app.db, company.id, 'OWNER');
    const session = await staffLogin(app, { email: owner.email, password: STAFF_PASSWORD });
    const email = `driver-${randomUUID().slice(0, 8)}@company.test`;
    const json = Buffer.from(JSON.stringify({ email, password: 'long enough secret', name: 'Rami Haddad' }));
    const send = (coding: string, body: Uint8Array<ArrayBuffer>) =>
      app.request('/dashboard/api/drivers', {
        method: 'POST',
        headers: { ...session.writeHeaders, 'Content-Type': 'application/json', 'Content-Encoding': coding },
        body,
      });
    const stored = () => app.db.query(`select name from staff_users where email = $1`, [email]);

    // gzip is not decoded (it was read as bytes: 400); a coding nobody knows was read as plain JSON (201).
    for (const [coding, body] of [
      ['gzip', new Uint8Array(gzipSync(json))],
      ['x-foo', json],
    ] as const) {
      const refused = await send(coding, body);
      expect([
        coding,
        refused.status,
        refused.body.errorCode,
        refused.headers.get('accept-encoding'),
      ]).toEqual([coding, 415, 'UNSUPPORTED_MEDIA_TYPE', 'identity']);
    }
    expect(await stored()).toEqual([]);

    // identity is no coding at all: the body is read as sent.
    const plain = await send('identity', json);
    expect(plain.status, plain.text).toBe(201);
    expect(await stored()).toEqual([{ name: 'Rami Haddad' }]);
  });
});
