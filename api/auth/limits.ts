import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { hourlyLimiter, type RateLimiter } from '../http/rate-limit.js';
import { hashSecret } from './secrets.js';

/**
 * One-time-code checks per client IP per hour: verify-otp and complete-phone draw on the same
 * counters (one rule name), so a code cannot be guessed twice as fast through the second route.
 */
export function otpChecksPerIp(
  db: Pick<Database, 'pool'>,
  config: Pick<Config, 'OTP_VERIFY_PER_IP_PER_HOUR'>,
): RateLimiter {
  return hourlyLimiter(db, 'otp-verify-ip', config.OTP_VERIFY_PER_IP_PER_HOUR);
}

/** The rate-limit key of an e-mail address: a hash, so the counters hold no addresses. */
export function emailKey(email: string): string {
  return hashSecret(email.toLowerCase());
}
