import { companySuspended } from '../../domain/company-moderation.js';
import type { Context } from 'koa';
import type { DriverPrincipal } from '../auth/driver-auth.js';
import { Refusal } from '../http/errors.js';

/** The driver app's signed-in company user (ctx.state.driver); routes declared `driver` have one. */
export function currentDriver(ctx: Pick<Context, 'state'>): DriverPrincipal {
  const driver = ctx.state.driver;
  if (!driver)
    throw new Refusal(401, 'AUTH_REQUIRED', 'Send the session token as Authorization: Bearer <token>');
  return driver;
}

/** A write of the driver app (a scan, a position): the company must be active, as for the dashboard's writes. */
export function activeDriver(ctx: Pick<Context, 'state'>): DriverPrincipal {
  const driver = currentDriver(ctx);
  if (driver.companyStatus !== 'ACTIVE') {
    throw companySuspended();
  }
  return driver;
}
