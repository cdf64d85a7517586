import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/harness.js';
import { mobileTraveller } from '../support/journeys.js';

/** Methods the service refuses, answered as HTTP says (issue 18: found by fuzzing the OpenAPI document). */

/** fetch refuses TRACE, so it goes through node:http. */
function rawRequest(app: TestApp, method: string, path: string) {
  return new Promise<{ status: number; allow: string | undefined; body: any }>((resolve, reject) => {
    const url = new URL(app.baseUrl + path);
    const request = httpRequest(
      { method, host: url.hostname, port: url.port, path: url.pathname },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            allow: response.headers.allow,
            body: text ? JSON.parse(text) : null,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('methods no route answers', () => {
  const app = useTestApp();

  it('answers TRACE and other unknown methods with 405 and the methods of the path, as OPTIONS lists them, not 501', async () => {
    const id = randomUUID();
    for (const [method, path] of [
      ['TRACE', '/api/cities'],
      ['TRACE', '/dashboard/api/trips'],
      ['PROPFIND', '/api/bookings'],
      ['PROPFIND', '/api/bookings/round-trip'],
      ['TRACE', `/api/bookings/${id}/document`],
      ['PROPFIND', '/dashboard/api/reports'],
    ]) {
      const response = await rawRequest(app, method!, path!);
      const options = await app.request(path!, { method: 'OPTIONS' });
      expect([response.status, response.body.errorCode, response.allow], `${method} ${path}`).toEqual([
        405,
        'METHOD_NOT_ALLOWED',
        options.headers.get('allow'),
      ]);
    }
    // RFC 9110 15.5.6: Allow lists what the target supports; /api/cities is read-only.
    expect((await rawRequest(app, 'TRACE', '/api/cities')).allow).toBe('HEAD, GET');
    // Paths served beside the surfaces too, and a path no route has is 404 whatever the method.
    const health = await rawRequest(app, 'PROPFIND', '/healthz');
    const nowhere = await rawRequest(app, 'PROPFIND', '/api/no-such-route');
    expect([health.status, health.allow, nowhere.status, nowhere.body.errorCode, nowhere.allow]).toEqual([
      405,
      'HEAD, GET',
      404,
      'NOT_FOUND',
      undefined,
    ]);
  });

  it('answers another method on a fixed path with 405, not as the {id} route beside it', async () => {
    const traveller = await mobileTraveller(app);
    const response = await app.request('/api/bookings/round-trip', { headers: traveller.headers });
    expect(response.status).toBe(405);
    expect(response.body.errorCode).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST');
    // The {id} route itself still answers as before.
    const unknown = await app.request(`/api/bookings/${crypto.randomUUID()}`, { headers: traveller.headers });
    expect(unknown.status).toBe(404);
  });
});

describe('routes that answer GET but no HEAD (head: false)', () => {
  const app = useTestApp();
  const id = randomUUID();

  it('does not advertise HEAD in OPTIONS, as those routes answer it with 405', async () => {
    const paths = [
      `/api/bookings/${id}/document?type=confirmation&locale=en`,
      `/api/bookings/${id}/receipt?locale=en`,
      `/api/document-shares/${id}/document?action=view&locale=en`,
      `/dashboard/api/reports?type=revenue&format=csv`,
      `/dashboard/api/payments/receipts/transaction/${id}?locale=en`,
    ];
    const answers: Record<string, unknown> = {};
    for (const path of paths) {
      const options = await app.request(path, { method: 'OPTIONS' });
      answers[path.split('?')[0]!.replace(id, '{id}')] = [options.status, options.headers.get('allow')];
    }
    expect(answers).toEqual({
      '/api/bookings/{id}/document': [200, 'GET'],
      '/api/bookings/{id}/receipt': [200, 'GET'],
      '/api/document-shares/{id}/document': [200, 'GET'],
      '/dashboard/api/reports': [200, 'GET'],
      '/dashboard/api/payments/receipts/transaction/{id}': [200, 'GET'],
    });
  });

  it('leaves HEAD out of the Allow of another method’s 405 too, on a fixed and on an {id} path', async () => {
    for (const path of ['/dashboard/api/reports', `/api/bookings/${id}/document`]) {
      const response = await app.request(path, { method: 'DELETE' });
      expect([response.status, response.body.errorCode, response.headers.get('allow')], path).toEqual([
        405,
        'METHOD_NOT_ALLOWED',
        'GET',
      ]);
    }
  });
});
