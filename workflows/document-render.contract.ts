/**
 * The document-render workflow's contract, imported by the API without the workflow body: one
 * short workflow per snapshot (id `document-render/{snapshotId}`) runs the render activity,
 * which stores the bytes and their checksum; the API then reads the stored bytes.
 */
export const DOCUMENT_RENDER_WORKFLOW = 'documentRender';

export {
  SNAPSHOT_NOT_FOUND,
  type DocumentRenderInput,
  type DocumentRenderResult,
} from '../domain/document-render.js';
