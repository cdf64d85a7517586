import { randomUUID } from 'node:crypto';
import { p } from '@mikro-orm/core';

/** Shared columns: a uuid primary key made in the application, and the creation time. */
export const baseProperties = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => randomUUID()),
  createdAt: p.datetime().onCreate(() => new Date()),
};
