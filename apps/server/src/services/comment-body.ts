import type { components, JSONDocument } from '@quire/api-types';
import { checkMarkdownLimitsOffThread, ContentError, documentToMarkdown } from '../content/index.js';
import { BadRequestError } from '../errors.js';
import type { CommentRow } from '../stores/comment-store.js';

type CommentBody = components['schemas']['CommentBody'];

/** A comment or reply body as stored: the form it was written in, and its text. */
export interface StoredBody {
  body_format: CommentRow['body_format'];
  body: string;
}

/** Refuses, with a 400 naming the limit, a body that passes a content limit (see content/markdown/limits.ts). */
async function withinContentLimits(markdown: string, field: string): Promise<void> {
  try {
    await checkMarkdownLimitsOffThread(markdown, field);
  } catch (error) {
    if (error instanceof ContentError) throw new BadRequestError(error.message);
    throw error;
  }
}

/**
 * The body as stored: the form it was written in. A document is checked to convert to markdown now, so that
 * answering it in either form can never fail later. A body with no content at all is stored as empty.
 */
export async function storedBody(input: CommentBody, field: string): Promise<StoredBody> {
  if ('markdown' in input && typeof input.markdown === 'string') {
    if (input.markdown.trim() === '') return { body_format: 'empty', body: '' };
    await withinContentLimits(input.markdown, `${field}.markdown`);
    return { body_format: 'markdown', body: input.markdown };
  }
  if ('document' in input && input.document) {
    const document = input.document as JSONDocument;
    if (document.nodes.length === 0) return { body_format: 'empty', body: '' };
    let markdown: string;
    try {
      markdown = documentToMarkdown(document);
    } catch {
      throw new BadRequestError(`${field}.document cannot be read as a document`);
    }
    // Read back as markdown, it must be content that can be stored.
    await withinContentLimits(markdown, `${field}.document`);
    return { body_format: 'document', body: JSON.stringify(document) };
  }
  return { body_format: 'empty', body: '' };
}
