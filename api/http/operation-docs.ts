import type { z } from 'zod';
import { operations, type OperationDoc, type ResponseSpec } from './route.js';
import { errorResponses } from './schemas.js';

/**
 * The responses of an operation with one success answer: that status with its description (and
 * body schema, where it has one), and the refusal statuses it documents, each with the ErrorBody.
 */
export function answers(
  status: number,
  description: string,
  schema: z.ZodType | undefined,
  refusals: number[],
): Record<number, ResponseSpec> {
  return { [status]: schema ? { description, schema } : { description }, ...errorResponses(...refusals) };
}

type UntaggedDoc = Omit<OperationDoc, 'operationId' | 'tags'> & { tags?: string[] };

/**
 * operations() for a feature whose operations share their tags: each gets `tags` unless it names its
 * own. The OpenAPI document lists the same operations as when every one spells its tags out.
 */
export function taggedOperations<const Docs extends Record<string, UntaggedDoc>>(
  tags: string[],
  docs: Docs,
): { [Id in keyof Docs & string]: Docs[Id] & { operationId: Id; tags: string[] } } {
  const tagged = Object.fromEntries(Object.entries(docs).map(([id, doc]) => [id, { tags, ...doc }]));
  return operations(tagged as Record<string, Omit<OperationDoc, 'operationId'>>) as {
    [Id in keyof Docs & string]: Docs[Id] & { operationId: Id; tags: string[] };
  };
}
