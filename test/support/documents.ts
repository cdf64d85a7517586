import type { TestApp } from './harness.js';

/** A fetched document (PDF) route's answer: the raw bytes, and the parsed body when it answered JSON (an error). */
export interface FetchedDocument {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  body: { errorCode: string } | undefined;
}

/** GETs a document route of the running app as a browser does, keeping the bytes as they came. */
export async function fetchDocument(
  app: TestApp,
  path: string,
  headers: Record<string, string>,
): Promise<FetchedDocument> {
  const response = await fetch(`${app.baseUrl}${path}`, { headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const body = response.headers.get('content-type')?.includes('json')
    ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as { errorCode: string })
    : undefined;
  return { status: response.status, headers: response.headers, bytes, body };
}
