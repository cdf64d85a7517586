import { completePhone } from '../../../db/writes/traveller-identity/index.js';
import { otpChecksPerIp } from '../../auth/limits.js';
import { checkOtp } from '../../auth/otp.js';
import { clientKey } from '../../http/client-address.js';
import type { Surface } from '../../http/route.js';
import { CompletePhoneBody } from '../idp.openapi.js';
import { publicTraveller, type IdpRoutes } from './answers.js';

/** POST /auth/customer/complete-phone: adds the verified phone to the signed-in account. */
export function registerCompletePhoneRoute(surface: Surface, { context, docs }: IdpRoutes): void {
  const checksPerIp = otpChecksPerIp(context.db, context.config);
  surface.route({
    ...docs.completePhone,
    method: 'post',
    path: '/auth/customer/complete-phone',
    security: 'traveller',
    body: CompletePhoneBody,
    handler: async (ctx, { body }) => {
      await checksPerIp.consume(ctx, clientKey(ctx));
      const { phone, spend } = await checkOtp(context, {
        phone: body.phone,
        code: body.code,
        method: body.method,
      });
      const completion = await completePhone(context.db, ctx.state.traveller!.userId, phone, spend);
      ctx.body = {
        success: true,
        data: {
          passengerId: completion.passengerId,
          merged: completion.merged,
          needsSessionRefresh: completion.merged,
          user: publicTraveller(completion.user),
        },
      };
    },
  });
}
