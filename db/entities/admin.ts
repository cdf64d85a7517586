import { p } from '@mikro-orm/core';
import { ADMIN_ROLES } from '../../domain/permissions.js';
import {
  baseEntity,
  entity,
  passwordAccount,
  serverSessionProperties,
  stampedAtWrite,
  updatedAt,
} from './base.js';

/** Administrators, their sessions and the audit log every administration read and change goes to. */
export const Admin = baseEntity('Admin', 'admins', {
  ...passwordAccount(),
  role: p.enum(ADMIN_ROLES),
  /** Granted on top of the role's own permissions. */
  permissions: p.array().default([]),
  totpRequired: p.boolean().default(false),
  totpSecret: p.text().nullable(),
  totpConfirmedAt: p.datetime().nullable(),
  recoveryCodeHashes: p.array().default([]),
  updatedAt: updatedAt(),
  /** A new authenticator's secret, kept apart until a code from it is confirmed. */
  totpPendingSecret: p.text().nullable(),
  totpPendingExpiresAt: p.datetime().nullable(),
  /** The last TOTP step accepted: a code is good once. */
  totpLastStep: p.bigint('number').nullable(),
});

export const AdminSession = entity('AdminSession', 'admin_sessions', {
  ...serverSessionProperties(),
  admin: () => p.manyToOne(Admin).ref(),
  /** When the session gave its second factor (TOTP); null: not yet. */
  secondFactorAt: p.datetime().nullable(),
});

export const AuditActorKind = ['ADMIN', 'STAFF', 'TRAVELLER', 'SYSTEM', 'DRIVER'] as const;

/** One audit row; the key is an identity column, so rows keep the order they were written in. */
export const AuditLogEntry = entity('AuditLogEntry', 'audit_log', {
  id: p.bigint('string').primary().autoincrement(),
  actorKind: p.enum(AuditActorKind),
  actorId: p.uuid().nullable(),
  action: p.text(),
  targetKind: p.text().nullable(),
  targetId: p.text().nullable(),
  details: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
  ip: p.text().nullable(),
  requestId: p.text().nullable(),
  /** When the row was written (clock_timestamp()), not its transaction's start: orders the log. */
  createdAt: stampedAtWrite(),
});
