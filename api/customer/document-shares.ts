import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { buildBookingDocument } from '../../db/queries/documents.js';
import {
  findShareGrant,
  recipientSessionSummary,
  shareableBooking,
  type ShareGrantRow,
  type ShareableBooking,
} from '../../db/queries/document-shares.js';
import {
  recordRecipientAccess,
  touchRecipientSession,
  unacceptable,
  type SessionEnd,
} from '../../db/writes/document-shares.js';
import { scaledMilliseconds } from '../../domain/journey-confirmation.js';
import {
  SHARE_DOCUMENT_KINDS,
  SHARE_PRESENTATIONS,
  type ShareDocumentKind,
  type SharePresentation,
} from '../../workflows/share-grant.contract.js';
import type { AppContext } from '../app.js';
import { hashSecret, newSecret, sameSecret } from '../auth/secrets.js';
import { actorOf, currentShareIssuer, shareableKinds, type ShareIssuer } from '../auth/share-issuer.js';
import { renderBookingDocument } from '../temporal/document-render-client.js';
import { FILE_TYPE, sendPdf } from '../documents/send.js';
import { Refusal } from '../http/errors.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Locale, Uuid } from '../http/schemas.js';
import { shareGrantClient } from '../temporal/share-grant-client.js';

/**
 * Document sharing (SPEC "Document sharing (customer API)"): a traveller, a company user or the
 * trip's driver shares one document of a booking to a second device through a one-use link
 * `/share/{grantId}#token=<secret>`. Rules:
 *   - the link can be accepted once, within SHARE_LINK_MINUTES (5); the recipient session then
 *     lasts at most SHARE_SESSION_MAX_MINUTES (30) and ends after SHARE_SESSION_IDLE_MINUTES (15)
 *     without a request (checked on every request; the session ends then and there);
 *   - a wrong secret answers exactly like an unknown grant (404 SHARE_NOT_FOUND);
 *   - the recipient cookie bb_share (HttpOnly, SameSite=Strict, path /api/document-shares/{grantId})
 *     opens this grant's session and document routes and nothing else;
 *   - every answer is private, no-store, noindex, nosniff; requests are limited per client IP
 *     (SHARE_RATE_LIMIT_PER_IP_PER_MINUTE, 120) and, on preview, accept, session and document,
 *     per client IP and grant (SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE, 30).
 */
export const SHARE_COOKIE = 'bb_share';

const GrantParams = z.object({ grantId: Uuid }).strict();

const CreateShareBody = z
  .object({
    bookingId: Uuid,
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    presentation: z.enum(SHARE_PRESENTATIONS).meta({
      description: 'DOWNLOAD: the recipient may view and download; VIEW: the recipient may only view',
    }),
  })
  .strict()
  .meta({ id: 'DocumentShareRequest' });

const SecretBody = z
  .object({ secret: z.string().min(1).max(256).meta({ description: 'the token from the link fragment' }) })
  .strict();

const DocumentQuery = z
  .object({
    action: z.enum(['view', 'download']),
    locale: Locale.default('ar'),
  })
  .strict();

const DateTime = z.string().meta({ format: 'date-time' });

const CreatedShare = z.object({
  success: z.literal(true),
  data: z.object({
    grantId: z.string().meta({ format: 'uuid' }),
    url: z.string().meta({
      description: 'the one-use link, /share/{grantId}#token=<secret>; the secret is shown only here',
    }),
    expiresAt: DateTime.meta({ description: 'the link can be accepted until then' }),
  }),
});

const SharePreview = z.object({
  success: z.literal(true),
  data: z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    company: z.object({ name_ar: z.string(), name_en: z.string() }),
  }),
});

const RecipientSession = z.object({
  success: z.literal(true),
  data: z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    presentation: z.enum(SHARE_PRESENTATIONS),
    expiresAt: DateTime.meta({ description: 'hard end of the session' }),
    idleExpiresAt: DateTime.meta({ description: 'the session ends then unless another request comes first' }),
  }),
});

const RevokedShare = z.object({
  success: z.literal(true),
  data: z.object({
    grantId: z.string().meta({ format: 'uuid' }),
    status: z.literal('REVOKED'),
    revokedAt: DateTime,
  }),
});

const PdfResponse = {
  description: 'The PDF (private, no-store, noindex); inline for view, attachment for download',
  contentType: 'application/pdf',
  schema: z.string().meta({ format: 'binary' }),
};

const notFound = () => new Refusal(404, 'SHARE_NOT_FOUND', 'No such share');
const bookingNotFound = () => new Refusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
const sessionRequired = () =>
  new Refusal(401, 'SHARE_SESSION_REQUIRED', 'Open the share link and accept it first');

/** Whether the issuer reaches the booking at all (otherwise 404, as if it did not exist). */
function reaches(issuer: ShareIssuer, booking: ShareableBooking): boolean {
  if (issuer.kind === 'TRAVELLER') return booking.ownerUserId === issuer.userId;
  if (issuer.companyId !== booking.companyId) return false;
  return issuer.kind === 'STAFF' || booking.driverId === issuer.staffUserId;
}

/** The issuer, the booking's owner, or an OWNER or ADMIN of the booking's company. */
function mayRevoke(issuer: ShareIssuer, grant: ShareGrantRow): boolean {
  if (issuer.kind === 'TRAVELLER') {
    return (
      (grant.issuerKind === 'TRAVELLER' && grant.issuerId === issuer.userId) ||
      grant.bookingOwnerUserId === issuer.userId
    );
  }
  const isIssuer = grant.issuerKind !== 'TRAVELLER' && grant.issuerId === issuer.staffUserId;
  const companyManager =
    issuer.kind === 'STAFF' &&
    issuer.companyId === grant.companyId &&
    ['OWNER', 'ADMIN'].includes(issuer.role);
  return isIssuer || companyManager;
}

function sessionEnded(end: SessionEnd): Refusal {
  return end === 'REVOKED'
    ? new Refusal(410, 'SHARE_REVOKED', 'This share was revoked')
    : new Refusal(410, 'SHARE_SESSION_EXPIRED', 'This shared document is no longer available');
}

/** Headers every share answer carries, errors included. */
function shareHeaders(ctx: Context): void {
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** Lifetimes (after TIME_SCALE), the workflow client and the rate limiters, shared by both surfaces. */
function shareSettings(context: AppContext) {
  const { db, config } = context;
  const scaled = (minutes: number) => scaledMilliseconds(minutes, config.TIME_SCALE);
  return {
    workflow: shareGrantClient(context.temporal, config),
    linkMilliseconds: scaled(config.SHARE_LINK_MINUTES),
    sessionMilliseconds: scaled(config.SHARE_SESSION_MAX_MINUTES),
    idleMilliseconds: scaled(config.SHARE_SESSION_IDLE_MINUTES),
    perIp: createRateLimiter(db, {
      name: 'document-share-ip',
      points: config.SHARE_RATE_LIMIT_PER_IP_PER_MINUTE,
      durationSeconds: 60,
    }),
    perGrant: createRateLimiter(db, {
      name: 'document-share-grant',
      points: config.SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE,
      durationSeconds: 60,
    }),
  };
}

type ShareSettings = ReturnType<typeof shareSettings>;

/** Before every share route of the surface (and its authentication): headers, then the per-IP limit. */
function guardSharePaths(surface: Surface, settings: ShareSettings): void {
  const sharePrefix = `${surface.base}/document-shares`;
  surface.router.use(async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path === sharePrefix || ctx.path.startsWith(`${sharePrefix}/`)) {
      shareHeaders(ctx);
      await settings.perIp.consume(ctx, ctx.ip);
    }
    await next();
  });
}

/**
 * The company dashboard's share routes (/dashboard/api/document-shares and .../revoke): the same
 * rules as the customer surface's, for a dashboard browser whose bb_staff cookie is scoped to
 * /dashboard and so never reaches /api.
 */
export function registerDashboardDocumentShareRoutes(surface: Surface, context: AppContext): void {
  const settings = shareSettings(context);
  guardSharePaths(surface, settings);
  registerIssuerRoutes(surface, context, settings, {
    security: 'companyStaff',
    operationSuffix: 'FromDashboard',
    issuerOf: (ctx) => {
      const staff = ctx.state.staff;
      if (!staff) throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to the company dashboard');
      return { kind: 'STAFF', staffUserId: staff.staffUserId, companyId: staff.companyId, role: staff.role };
    },
  });
}

export function registerDocumentShareRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const settings = shareSettings(context);
  const { workflow, sessionMilliseconds, idleMilliseconds, perGrant } = settings;
  const sharePrefix = `${surface.base}/document-shares`;
  guardSharePaths(surface, settings);
  registerIssuerRoutes(surface, context, settings, {
    security: 'shareIssuer',
    operationSuffix: '',
    issuerOf: currentShareIssuer,
  });

  const limitGrant = async (ctx: Context, grantId: string): Promise<void> => {
    await perGrant.consume(ctx, `${ctx.ip}|${grantId}`);
  };

  /**
   * The grant whose secret the caller knows (anything else is the same 404), refused when its link
   * can no longer be accepted.
   */
  const acceptableGrant = async (grantId: string, secret: string): Promise<ShareGrantRow> => {
    const grant = await findShareGrant(db, grantId);
    if (!grant || !sameSecret(hashSecret(secret), grant.secretHash)) throw notFound();
    const refusal = unacceptable(grant);
    if (refusal) throw refusal;
    return grant;
  };

  /** The recipient session of this grant from its cookie, checked and touched (idle ends it). */
  const recipientOf = async (
    ctx: Context,
    grantId: string,
  ): Promise<ShareGrantRow & { sessionId: string }> => {
    const token = ctx.cookies.get(SHARE_COOKIE);
    if (!token) throw sessionRequired();
    const used = await touchRecipientSession(db, {
      grantId,
      sessionTokenHash: hashSecret(token),
      idleMilliseconds,
    });
    refuseDeadSession(grantId, used);
    const grant = await findShareGrant(db, grantId);
    if (!grant) throw notFound();
    return { ...grant, sessionId: used.sessionId };
  };

  const refuseDeadSession: (
    grantId: string,
    used: { sessionId: string } | { ended: SessionEnd } | null,
  ) => asserts used is { sessionId: string } = (grantId, used) => {
    if (!used) throw sessionRequired();
    if ('ended' in used) {
      // The workflow may expire the grant now rather than at the session's hard end.
      if (used.ended === 'IDLE') void workflow.reportIdle(grantId);
      throw sessionEnded(used.ended);
    }
  };

  surface.route({
    method: 'post',
    path: '/document-shares/{grantId}/preview',
    operationId: 'previewDocumentShare',
    summary: 'What a share link opens: the document kind and the operating company, nothing else',
    description:
      'No session needed; the secret from the link fragment goes in the body. A wrong secret is 404 ' +
      'SHARE_NOT_FOUND like an unknown grant; an expired link 410 SHARE_EXPIRED; a revoked share 410 ' +
      'SHARE_REVOKED; a link already accepted 409 SHARE_ALREADY_ACCEPTED.',
    tags: ['Documents'],
    security: 'public',
    csrf: false,
    params: GrantParams,
    body: SecretBody,
    responses: {
      200: { description: 'Preview', schema: SharePreview },
      ...errorResponses(400, 404, 409, 410, 429),
    },
    handler: async (ctx, { params, body }) => {
      await limitGrant(ctx, params.grantId);
      const grant = await acceptableGrant(params.grantId, body.secret);
      ctx.body = { success: true, data: { documentKind: grant.documentKind, company: grant.company } };
    },
  });

  surface.route({
    method: 'post',
    path: '/document-shares/{grantId}/accept',
    operationId: 'acceptDocumentShare',
    summary: 'Accept a share link (once) and open the recipient session',
    description:
      'Sets the recipient cookie bb_share (HttpOnly, SameSite=Strict, Path=/api/document-shares/{grantId}); ' +
      'the session lasts at most 30 minutes and ends after 15 minutes without a request. The cookie opens ' +
      'only this grant’s session and document; it is no traveller credential. Two accepts never give two ' +
      'sessions: the second is 409 SHARE_ALREADY_ACCEPTED.',
    tags: ['Documents'],
    security: 'public',
    csrf: false,
    params: GrantParams,
    body: SecretBody,
    responses: {
      200: { description: 'Accepted', schema: RecipientSession },
      ...errorResponses(400, 404, 409, 410, 429, 503),
    },
    handler: async (ctx, { params, body }) => {
      await limitGrant(ctx, params.grantId);
      const grant = await acceptableGrant(params.grantId, body.secret);
      const token = newSecret();
      const session = await workflow.accept(grant.id, hashSecret(body.secret), hashSecret(token));
      if (config.COOKIE_SECURE) ctx.cookies.secure = true;
      ctx.cookies.set(SHARE_COOKIE, token, {
        httpOnly: true,
        secure: config.COOKIE_SECURE,
        sameSite: 'strict',
        path: `${sharePrefix}/${grant.id}`,
        maxAge: sessionMilliseconds,
        overwrite: true,
      });
      const summary = await recipientSessionSummary(db, session.sessionId);
      ctx.body = { success: true, data: sessionData(grant, summary) };
    },
  });

  const sessionData = (
    grant: { documentKind: ShareDocumentKind; presentation: SharePresentation },
    summary: { expiresAt: Date; lastSeenAt: Date },
  ) => ({
    documentKind: grant.documentKind,
    presentation: grant.presentation,
    expiresAt: summary.expiresAt.toISOString(),
    idleExpiresAt: new Date(
      Math.min(summary.lastSeenAt.getTime() + idleMilliseconds, summary.expiresAt.getTime()),
    ).toISOString(),
  });

  surface.route({
    method: 'get',
    path: '/document-shares/{grantId}/session',
    operationId: 'getDocumentShareSession',
    summary: 'The recipient session of a share (recipient cookie)',
    description:
      'No cookie or another grant’s cookie: 401 SHARE_SESSION_REQUIRED. Revoked: 410 SHARE_REVOKED. Past ' +
      'its 30 minutes or idle for 15: 410 SHARE_SESSION_EXPIRED (an idle session ends then and there).',
    tags: ['Documents'],
    security: 'shareRecipient',
    params: GrantParams,
    responses: {
      200: { description: 'The session', schema: RecipientSession },
      ...errorResponses(400, 401, 410, 429),
    },
    handler: async (ctx, { params }) => {
      await limitGrant(ctx, params.grantId);
      const recipient = await recipientOf(ctx, params.grantId);
      const summary = await recipientSessionSummary(db, recipient.sessionId);
      ctx.body = { success: true, data: sessionData(recipient, summary) };
    },
  });

  surface.route({
    method: 'get',
    path: '/document-shares/{grantId}/document',
    operationId: 'getSharedDocument',
    summary: 'The shared document as PDF (recipient cookie)',
    description:
      'Builds the document’s snapshot and renders it first, then re-checks the session (revoked, expired or ' +
      'idle meanwhile: refused, no byte sent) and logs the view or download with the checksum and size ' +
      'before the bytes go. action=download needs a grant with presentation DOWNLOAD (else 403 ' +
      'SHARE_DOWNLOAD_NOT_ALLOWED).',
    tags: ['Documents'],
    security: 'shareRecipient',
    params: GrantParams,
    query: DocumentQuery,
    responses: { 200: PdfResponse, ...errorResponses(400, 401, 403, 409, 410, 429, 500) },
    handler: async (ctx, { params, query }) => {
      await limitGrant(ctx, params.grantId);
      const recipient = await recipientOf(ctx, params.grantId);
      const download = query.action === 'download';
      if (download && recipient.presentation !== 'DOWNLOAD') {
        throw new Refusal(403, 'SHARE_DOWNLOAD_NOT_ALLOWED', 'This share may only be viewed');
      }
      const { document, snapshotId, rendered } = await renderBookingDocument(context, {
        bookingId: recipient.bookingId,
        kind: recipient.documentKind,
        locale: query.locale,
        viewer: { kind: 'GRANT' },
      });
      const final = await recordRecipientAccess(db, {
        grantId: params.grantId,
        sessionTokenHash: hashSecret(ctx.cookies.get(SHARE_COOKIE)!),
        idleMilliseconds,
        snapshotId,
        action: download ? 'DOWNLOAD' : 'VIEW',
        sha256: rendered.sha256,
        size: rendered.size,
        requestId: ctx.state.requestId,
      });
      refuseDeadSession(params.grantId, final);
      sendPdf(ctx, rendered, {
        filename: `shared-${FILE_TYPE[document.kind]}-${document.locale}.pdf`,
        disposition: download ? 'attachment' : 'inline',
      });
    },
  });
}

/** POST /document-shares and POST /document-shares/{grantId}/revoke on a surface, with its issuer. */
function registerIssuerRoutes(
  surface: Surface,
  context: AppContext,
  settings: ShareSettings,
  spec: {
    security: 'shareIssuer' | 'companyStaff';
    operationSuffix: string;
    issuerOf: (ctx: Context) => ShareIssuer;
  },
): void {
  const { db } = context;

  surface.route({
    method: 'post',
    path: '/document-shares',
    operationId: `createDocumentShare${spec.operationSuffix}`,
    summary: 'Share one document of a booking through a one-use link',
    description:
      'The issuer is resolved from the session: the traveller who owns the booking (every kind); a company ' +
      'OWNER or ADMIN of the booking’s company (every kind); DISPATCHER and STAFF (BOOKING_CONFIRMATION and ' +
      'CANCELLATION_CONFIRMATION only); the driver assigned to the booking’s trip (BOOKING_CONFIRMATION and ' +
      'PAYMENT_RECEIPT only; driver app bearer token); ACCOUNTANT none; a platform administrator (SUPPORT ' +
      'included) 403 SHARE_ISSUER_FORBIDDEN. A booking the issuer does not reach is 404 BOOKING_NOT_FOUND; a ' +
      'kind the role may not share is 403 SHARE_KIND_NOT_ALLOWED; a document that cannot be issued now keeps ' +
      'its document errorCode (409/410). The link is valid 5 minutes and for one use; the secret is returned ' +
      'only here and stored only as a hash.',
    tags: ['Documents'],
    security: spec.security,
    body: CreateShareBody,
    responses: {
      201: { description: 'Created', schema: CreatedShare },
      ...errorResponses(400, 401, 403, 404, 409, 410, 429, 503),
    },
    handler: async (ctx, { body }) => {
      const issuer = spec.issuerOf(ctx);
      const booking = await shareableBooking(db, body.bookingId);
      if (!booking || !reaches(issuer, booking)) throw bookingNotFound();
      if (!shareableKinds(issuer).includes(body.documentKind)) {
        throw new Refusal(403, 'SHARE_KIND_NOT_ALLOWED', 'Your role may not share this kind of document', {
          documentKind: body.documentKind,
          allowedKinds: [...shareableKinds(issuer)],
        });
      }
      // A share of a document that cannot be issued (not confirmed, not paid, gone) is refused up front.
      await buildBookingDocument(db, {
        bookingId: booking.id,
        kind: body.documentKind,
        locale: 'en',
        viewer: { kind: 'GRANT' },
      });
      const secret = newSecret();
      const grantId = randomUUID();
      const opened = await settings.workflow.open({
        grantId,
        bookingId: booking.id,
        companyId: booking.companyId,
        documentKind: body.documentKind,
        presentation: body.presentation,
        issuer: actorOf(issuer),
        secretHash: hashSecret(secret),
        linkMilliseconds: settings.linkMilliseconds,
        sessionMilliseconds: settings.sessionMilliseconds,
      });
      ctx.status = 201;
      ctx.body = {
        success: true,
        data: { grantId, url: `/share/${grantId}#token=${secret}`, expiresAt: opened.linkExpiresAt },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/document-shares/{grantId}/revoke',
    operationId: `revokeDocumentShare${spec.operationSuffix}`,
    summary: 'Revoke a share; its recipient session ends at once',
    description:
      'Allowed to the issuer, the traveller who owns the booking, and an OWNER or ADMIN of the booking’s ' +
      'company; anyone else gets 404 SHARE_NOT_FOUND. Revoking again answers the same; an expired share is ' +
      '410 SHARE_EXPIRED.',
    tags: ['Documents'],
    security: spec.security,
    params: GrantParams,
    responses: {
      200: { description: 'Revoked', schema: RevokedShare },
      ...errorResponses(400, 401, 403, 404, 410, 429, 503),
    },
    handler: async (ctx, { params }) => {
      const issuer = spec.issuerOf(ctx);
      const grant = await findShareGrant(db, params.grantId);
      if (!grant || !mayRevoke(issuer, grant)) throw notFound();
      if (grant.status === 'EXPIRED')
        throw new Refusal(410, 'SHARE_EXPIRED', 'This share has already expired');
      const revoked =
        grant.status === 'REVOKED' && grant.revokedAt
          ? { revokedAt: grant.revokedAt.toISOString() }
          : await settings.workflow.revoke(grant.id, actorOf(issuer));
      ctx.body = {
        success: true,
        data: { grantId: grant.id, status: 'REVOKED', revokedAt: revoked.revokedAt },
      };
    },
  });
}
