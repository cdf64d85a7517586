import { describe, expect, it } from 'vitest';
import {
  activeWindow,
  blockedDuringMaintenance,
  checkWindowTimes,
  maintenanceRefusal,
  refusedUntil,
  requireChangeableWindow,
  retryAfterSeconds,
  type MaintenanceWindow,
} from './maintenance.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 24, 12, minutes));
const window = (id: string, from: number, to: number): MaintenanceWindow => ({
  id,
  message: id,
  startsAt: at(from),
  endsAt: at(to),
});

describe('maintenance windows', () => {
  it('is in force from its start until (not including) its end; overlapping windows give the later end', () => {
    const windows = [window('a', 0, 30), window('b', 20, 50)];
    expect(activeWindow(windows, at(-1))).toBeNull();
    expect(activeWindow(windows, at(0))?.id).toBe('a');
    expect(activeWindow(windows, at(25))?.id).toBe('b');
    expect(activeWindow(windows, at(50))).toBeNull();
  });

  it('asks to retry after the whole seconds left, at least one', () => {
    const w = window('a', 0, 10);
    expect(retryAfterSeconds(w, new Date(at(9).getTime() + 30_500))).toBe(30);
    expect(retryAfterSeconds(w, at(10))).toBe(1);
  });

  it('reopens writes at the end of the refused period: through windows starting at or before the end, not across a gap', () => {
    const phases = [window('a', 0, 10), window('b', 10, 20), window('c', 15, 40), window('d', 41, 50)];
    expect(refusedUntil(phases, phases[0]!)).toEqual(at(40));
    expect(refusedUntil(phases, phases[3]!)).toEqual(at(50));
    // A window inside the one in force does not shorten it; order of the list does not matter.
    expect(refusedUntil([window('b', 5, 8), window('a', 0, 30)], window('a', 0, 30))).toEqual(at(30));
    expect(
      refusedUntil([window('c', 20, 60), window('b', 10, 25), window('a', 0, 10)], window('a', 0, 10)),
    ).toEqual(at(60));
  });

  it('refuses with the message of the window in force and Retry-After to when writes reopen, refused no more then', () => {
    const now = new Date(at(5).getTime() + 30_000);
    const windows = [window('phase 1', 0, 10), window('phase 2', 10, 30)];
    const refusal = maintenanceRefusal(windows, now)!;
    expect(refusal).toEqual({ id: 'phase 1', message: 'phase 1', endsAt: at(30) });
    expect(retryAfterSeconds(refusal, now)).toBe(24 * 60 + 30);
    const retryAt = new Date(now.getTime() + retryAfterSeconds(refusal, now) * 1000);
    expect(maintenanceRefusal(windows, retryAt)).toBeNull();
    expect(maintenanceRefusal(windows, at(-1))).toBeNull();
    expect(maintenanceRefusal([window('alone', 0, 10), window('later', 11, 20)], at(5))?.endsAt).toEqual(
      at(10),
    );
  });

  it.each([
    ['POST', '/api/favorites', true],
    ['DELETE', '/api/favorites', true],
    ['PUT', '/dashboard/api/settings/booking-confirmation', true],
    ['PATCH', '/dashboard/api/bookings/x/status', false],
    ['PATCH', '/Dashboard/API/Bookings/X/Status/', false],
    ['patch', '/dashboard/api/bookings/x/status', false],
    ['PUT', '/dashboard/api/bookings/x/status', true],
    ['POST', '/dashboard/api/bookings/x/status', true],
    ['DELETE', '/dashboard/api/bookings/x/status', true],
    ['PATCH', '/dashboard/api/bookings/x', true],
    ['PATCH', '/dashboard/api/bookings/x/status/extra', true],
    ['PATCH', '/dashboard/api/bookings/x/y/status', true],
    ['PATCH', '/api/bookings/x/status', true],
    ['POST', '/api/waitlist', true],
    ['POST', '/api/webhooks', true],
    ['GET', '/api/cities', false],
    ['GET', '/dashboard/api/auth/me', false],
    ['POST', '/api/auth/customer/send-otp', false],
    ['POST', '/dashboard/api/auth/login', false],
    ['POST', '/api/auth/customer/verify-otp', false],
    ['POST', '/api/auth/customer/refresh', false],
    ['POST', '/api/auth/customer/logout', false],
    ['POST', '/api/auth/customer/idp/web', false],
    ['POST', '/api/auth/customer/idp/mobile', false],
    ['POST', '/api/auth/customer/idp/pwa', false],
    ['GET', '/api/auth/customer/idp/nonce', false],
    ['GET', '/api/auth/customer/me', false],
    ['POST', '/api/auth/customer/verify-email', true],
    ['POST', '/api/auth/customer/resend-verification', true],
    ['POST', '/api/auth/customer/complete-phone', true],
    ['POST', '/api/auth/forgot-password', true],
    ['POST', '/api/auth', true],
    ['POST', '/api/auth/customer/send-otp/extra', true],
    ['POST', '/dashboard/api/auth/logout', false],
    ['POST', '/api/journeys/search', false],
    ['POST', '/api/loyalty/preview', false],
    ['POST', '/api/document-shares/abc/accept', false],
    ['POST', '/api/document-shares/abc/revoke', false],
    ['POST', '/dashboard/api/document-shares/abc/revoke', false],
    ['POST', '/dashboard/api/document-shares', true],
    ['POST', '/api/document-shares', true],
    ['POST', '/admin/api/maintenance', false],
    ['POST', '/driver/api/anything', false],
    ['POST', '/api/journeys/quote', true],
  ])('%s %s is refused during maintenance: %s', (method, path, blocked) => {
    expect(blockedDuringMaintenance(method, path)).toBe(blocked);
  });

  it('schedules windows that end after they start, in the future, within 72 hours', () => {
    const now = at(0);
    expect(() => checkWindowTimes(at(10), at(5), now)).toThrow(
      expect.objectContaining({ code: 'MAINTENANCE_WINDOW_INVALID' }),
    );
    expect(() => checkWindowTimes(at(-20), at(-10), now)).toThrow(
      expect.objectContaining({ code: 'MAINTENANCE_WINDOW_INVALID' }),
    );
    expect(() => checkWindowTimes(at(0), at(72 * 60 + 1), now)).toThrow(
      expect.objectContaining({ code: 'MAINTENANCE_WINDOW_TOO_LONG' }),
    );
    expect(() => checkWindowTimes(at(-5), at(72 * 60 - 5), now)).not.toThrow();
  });

  it('changes scheduled windows freely, active ones but their start, closed ones never', () => {
    expect(() => requireChangeableWindow('SCHEDULED', true)).not.toThrow();
    expect(() => requireChangeableWindow('ACTIVE', false)).not.toThrow();
    expect(() => requireChangeableWindow('ACTIVE', true)).toThrow(
      expect.objectContaining({ code: 'MAINTENANCE_WINDOW_ACTIVE' }),
    );
    expect(() => requireChangeableWindow('ENDED', false)).toThrow(
      expect.objectContaining({ code: 'MAINTENANCE_WINDOW_CLOSED' }),
    );
    expect(() => requireChangeableWindow('CANCELLED', false)).toThrow(
      expect.objectContaining({ status: 409 }),
    );
  });
});
