import { randomUUID } from 'node:crypto';
import { defineEntity, p, raw } from '@mikro-orm/core';

/**
 * Column groups that several tables share by convention. Each is a function, so every entity gets
 * builders of its own.
 */

/** A timestamp the database sets to now() (the transaction's start) when the insert leaves it out. */
export const stampedNow = () => p.datetime().defaultRaw('now()');

/**
 * A timestamp the database sets to clock_timestamp() (the moment the row is written, not the
 * transaction's start) when the insert leaves it out: rows that record the order things happened
 * in (a company's history, the audit log, a ticket's messages), written after the row locks that
 * order them.
 */
export const stampedAtWrite = () => p.datetime().defaultRaw('clock_timestamp()');

/**
 * Shared columns: a uuid primary key made in the application (the entity has its identity before
 * the insert), and the creation time the database sets, as the hand-written inserts get it.
 */
export const baseProperties = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => randomUUID()),
  createdAt: stampedNow(),
};

/** Whether an account may sign in; a DISABLED one may not, and its sessions end. */
export const AccountStatus = ['ACTIVE', 'DISABLED'] as const;

export const accountStatus = () => p.enum(AccountStatus).default('ACTIVE');

/** updated_at: now() on insert and on every update an entity makes, as the hand-written writes set it. */
export const updatedAt = () => stampedNow().onUpdate(() => raw<Date>('now()'));

/** updated_at as stampedAtWrite: the moment of the insert and of every update an entity makes. */
export const updatedAtWrite = () => stampedAtWrite().onUpdate(() => raw<Date>('clock_timestamp()'));

/** A name travellers read in Arabic and in English (cities, stops, routes, companies, loyalty programs). */
export const bilingualName = () => ({
  nameAr: p.text(),
  nameEn: p.text(),
});

/** Where to reach a person or a company; either may be missing. */
export const contactDetails = () => ({
  phone: p.text().nullable(),
  email: p.text().nullable(),
});

/** A point on the map (cities and stops). */
export const coordinates = () => ({
  latitude: p.double(),
  longitude: p.double(),
});

/** A price as journeys and bookings carry it: the total in the currency's smallest unit. */
export const pricedInSyp = () => ({
  totalPrice: p.bigint('number').default(0),
  currency: p.text().default('SYP'),
});

/** An account that signs in with e-mail and password (company staff, administrators). */
export const passwordAccount = () => ({
  email: p.text(),
  passwordHash: p.text(),
  name: p.text().default(''),
  status: accountStatus(),
});

/** Who saved a row's current values and when (settings and flags an operator edits). */
export const lastSaved = () => ({
  updatedBy: p.uuid().nullable(),
  updatedAt: updatedAt(),
});

/** Who decided a row's outcome and when; both null until someone does. */
export const decision = () => ({
  decidedBy: p.uuid().nullable(),
  decidedAt: p.datetime().nullable(),
});

/** Good until expiresAt, spent once at usedAt (null until then): one-use tokens, vouchers. */
export const usableOnceUntil = () => ({
  expiresAt: p.datetime(),
  usedAt: p.datetime().nullable(),
});

/** A one-use secret's hash: good until expiresAt, spent at usedAt. */
export const oneUseToken = () => ({
  tokenHash: p.text().unique(),
  ...usableOnceUntil(),
});

/** A challenge answered at most once before it expires (codes, nonces). */
export const consumedOnce = () => ({
  expiresAt: p.datetime(),
  consumedAt: p.datetime().nullable(),
});

/** A session known by the hash of its token, alive until expiresAt, last seen at lastSeenAt. */
export const sessionToken = () => ({
  tokenHash: p.text().unique(),
  lastSeenAt: stampedNow(),
  expiresAt: p.datetime(),
});

/**
 * A server-side session of the dashboard or the administration: only hashes of the session token
 * and of its CSRF token are stored; it ends by expiry or revocation.
 */
export const serverSessionProperties = () => ({
  ...baseProperties,
  ...sessionToken(),
  csrfTokenHash: p.text(),
  revokedAt: p.datetime().nullable(),
});

/** An entity: its name, its table and the table's columns (defineEntity with nothing else to say). */
export function entity<
  const TName extends string,
  const TTableName extends string,
  const TProperties extends Record<string, unknown>,
>(name: TName, tableName: TTableName, properties: TProperties) {
  return defineEntity({ name, tableName, properties });
}

/**
 * A builder of entities whose tables all begin with the same columns: it takes an entity's name,
 * its table and the table's other columns, like `entity`.
 */
function entityStartingWith<const TShared extends Record<string, unknown>>(shared: () => TShared) {
  return <
    const TName extends string,
    const TTableName extends string,
    const TProperties extends Record<string, unknown>,
  >(
    name: TName,
    tableName: TTableName,
    properties: TProperties,
  ) => entity(name, tableName, { ...shared(), ...properties });
}

/** An entity whose rows are known by a uuid id the application makes, and carry no created_at. */
export const idEntity = entityStartingWith(() => ({ id: baseProperties.id }));

/**
 * An entity whose rows carry the base columns (uuid id, created_at). The same schema as
 * defineEntity({ name, tableName, properties: { ...baseProperties, ... } }).
 */
export const baseEntity = entityStartingWith(() => baseProperties);

/**
 * An entity of a company's own records: the base columns, then company_id, the tenant key every
 * read and write of the table is scoped by.
 */
export const companyEntity = entityStartingWith(() => ({ ...baseProperties, companyId: p.uuid() }));
