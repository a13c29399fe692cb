import { unwrap } from '@quire/client';
import { api } from '../api/client.js';

/*
 * Saving a page of a change request as one types, never over an edit made elsewhere. The editor starts from a
 * version: the page's Markdown in one revision of the change request. Each save is conditional on that
 * revision (`revision` of updateChangeRequestContent): if anyone edited the change request since, the server
 * changes nothing and answers 412. The page is then read in the request's new revision: if its Markdown is
 * still what this editor started from, the other edit was elsewhere (another page, the tree) and the save is
 * made again on the new revision; otherwise the editor shows both versions and the writer chooses.
 */

export interface PageRef {
  spaceId: string;
  changeRequestId: string;
  pageId: string;
}

/** A page's Markdown as it is in one revision of the change request. */
export interface PageVersion {
  markdown: string;
  revision: string;
}

/** Saves made again on a newer revision at most, when edits elsewhere keep landing, before giving up with an error. */
const MAX_REBASES = 5;

async function pageInRevision({ spaceId, pageId }: PageRef, revisionId: string): Promise<string> {
  const page = await unwrap(api.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', {
    params: { path: { spaceId, revisionId, pageId }, query: { format: 'markdown' } },
  }));
  return page.markdown ?? '';
}

/** The page as it is now: the change request's current revision, and the page read in that very revision. */
export async function readPageVersion(ref: PageRef): Promise<PageVersion> {
  const changeRequest = await unwrap(api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', {
    params: { path: { spaceId: ref.spaceId, changeRequestId: ref.changeRequestId } },
  }));
  return { revision: changeRequest.revision, markdown: await pageInRevision(ref, changeRequest.revision) };
}

export type SaveOutcome = { kind: 'saved'; stored: PageVersion } | { kind: 'conflict'; theirs: PageVersion };

/**
 * Writes `text` over `base` if nobody changed this page since; answers the page as stored (the server
 * normalises Markdown, so the next comparison is against what it keeps) or the other version. The request's
 * revision is looked at first, so that an edit made elsewhere is usually seen without a refused write; the
 * precondition catches the one landing between that look and the write.
 */
export async function savePage(ref: PageRef, base: PageVersion, text: string): Promise<SaveOutcome> {
  for (let attempt = 0; attempt <= MAX_REBASES; attempt++) {
    const now = await readPageVersion(ref);
    if (now.markdown !== base.markdown) return { kind: 'conflict', theirs: now };
    const answer = await api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
      params: { path: { spaceId: ref.spaceId, changeRequestId: ref.changeRequestId } },
      body: { revision: now.revision, changes: [{ operation: 'update_page', page: ref.pageId, document: { markdown: text } }] },
    });
    if (answer.response.status === 412) continue;
    const revision = (await unwrap(answer)).changeRequest.revision;
    return { kind: 'saved', stored: { revision, markdown: await pageInRevision(ref, revision) } };
  }
  throw new Error('Other edits to this change request kept landing while saving. Your text is kept here; keep typing and saving is tried again.');
}
