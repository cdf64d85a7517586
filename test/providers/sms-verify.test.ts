import { describe, expect, it } from 'vitest';
import { retryAfterOf } from '../../providers/sms-verify.js';

/** The SMS provider's Retry-After: delay-seconds or one of the HTTP-date forms, else unreadable. */
describe("reading the SMS provider's Retry-After", () => {
  const now = Date.parse('2030-03-04T10:00:00Z');

  it.each([
    ['120', 120],
    ['0', 0],
    [' 45 ', 45],
    ['Mon, 04 Mar 2030 10:10:00 GMT', 600],
    ['Monday, 04-Mar-30 10:10:00 GMT', 600],
    ['Mon Mar  4 10:10:00 2030', 600],
    ['Mon, 04 Mar 2030 09:00:00 GMT', 0],
  ])('reads %j as %d s', (header, seconds) => {
    expect(retryAfterOf(header, now)).toBe(seconds);
  });

  it.each([null, '', 'soon', '1.5', '-5', '1e3', '30s', '2030-03-04T10:10:00Z', 'Mar 4 2030'])(
    'reads %j as unreadable (the caller then waits its own default)',
    (header) => {
      expect(retryAfterOf(header, now)).toBeUndefined();
    },
  );
});
