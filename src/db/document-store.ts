import type { DocumentStore } from '../ports/document-store.ts';
import type { Database } from './client.ts';

/** The document store the deployment uses (filled in by the claim-documents work). */
export function createDocumentStore(_db: Database): DocumentStore {
  const missing = () => Promise.reject(new Error('document store not implemented yet'));
  return { kind: 'postgres', put: missing, get: missing, remove: missing };
}
