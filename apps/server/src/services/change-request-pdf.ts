import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { publishRevisionPdf, type PdfPageQuery } from './revision-pdf.js';

/** A PDF of the change request's current revision (or one page of it): see `publishRevisionPdf`. */
export async function getChangeRequestPDF(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  query: PdfPageQuery,
): Promise<{ url: string }> {
  const { space, changeRequest } = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const subject = changeRequest.subject.trim();
  return publishRevisionPdf(context, {
    spaceId: space.id,
    revisionId: changeRequest.revision_id,
    query,
    title: subject === '' ? `Change request #${changeRequest.number}` : `Change request #${changeRequest.number}: ${subject}`,
    subtitle: space.title === '' ? 'Untitled space' : space.title,
    createdAt: changeRequest.updated_at,
    contentName: 'this change request',
  });
}
