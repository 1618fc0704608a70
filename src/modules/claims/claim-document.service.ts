import { checklistState, openChecklist } from './documents/checklist.ts';
import { mark } from './documents/mark.ts';
import { bytesOf } from './documents/bytes.ts';
import { checklist, fileOf, lineById, linesOf, list } from './documents/read.ts';
import { upload } from './documents/upload.ts';

/**
 * A claim's documents checklist, one file per operation under ./documents/: the checklist itself (opened at
 * registration, its state guarding documents_pending → with_underwriter), uploads behind the document store
 * (app.documents), reads, bytes read range by range (bytes.ts), and decisions by hand (received on paper, waived with a reason).
 */

export { checklistState, openChecklist, stateOf } from './documents/checklist.ts';
export { DOCUMENT_TYPES } from './documents/content.ts';

export const claimDocumentService = {
  openChecklist,
  checklistState,
  checklist,
  linesOf,
  lineById,
  list,
  file: fileOf,
  content: bytesOf,
  upload,
  mark,
};
