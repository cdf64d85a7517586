import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { createAdmin, expectError } from './helpers.js';

/** A window of 3.75 s (1/16 minute: a whole number of milliseconds), so a sign-in can outlast one. */
const WINDOW_MINUTES = 1 / 16;
const WINDOW_MS = WINDOW_MINUTES * 60_000;

/**
 * README (administration sign-in): attempts are limited per client IP, and a successful sign-in
 * gives its attempt back. It gives it back to the window it was counted in only: a sign-in that
 * outlasts its window hands the next window no extra attempt.
 */
describe('administration sign-in limit per client IP, across the end of its window', () => {
  const app = useTestApp({
    ADMIN_LOGIN_MAX_PER_IP: 1,
    ADMIN_LOGIN_WINDOW_MINUTES: WINDOW_MINUTES,
    TRUSTED_PROXY_HOPS: 1,
  });
  const address = `10.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}.9`;
  const signIn = (email: string, password: string) =>
    app.request('/admin/api/auth/login', {
      method: 'POST',
      headers: { 'X-Forwarded-For': address },
      json: { email, password },
    });
  const wrongPassword = () => signIn(`x-${randomUUID()}@test.example`, 'x');

  it('a sign-in whose window ended before it succeeded gives the next window no extra attempt', async () => {
    const admin = await createAdmin(app.db);
    // The account's row is busy: the sign-in, counted in the first window, waits to open its session.
    const held = await holdLock(app.db, `select 1 from admins where id = '${admin.id}' for update`);
    const slow = signIn(admin.email, admin.password);
    await waitersOf(app.db, held.pid, 1);
    await sleep(WINDOW_MS + 150);
    // The second window's one attempt.
    expect((await wrongPassword()).status).toBe(401);
    await held.release();
    expect((await slow).status).toBe(200);
    expectError(await wrongPassword(), 429, 'RATE_LIMITED');
  });

  it('a sign-in that succeeds within its window still gives its attempt back', async () => {
    await sleep(WINDOW_MS + 150);
    const admin = await createAdmin(app.db);
    expect((await signIn(admin.email, admin.password)).status).toBe(200);
    expect((await wrongPassword()).status).toBe(401);
    expectError(await wrongPassword(), 429, 'RATE_LIMITED');
  });
});
