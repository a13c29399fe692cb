import { describe, expect, it } from 'vitest';
import { presentCommentBody } from './comment-presenter.js';

describe('presentCommentBody', () => {
  it('answers a markdown body as a document when asked', () => {
    const answer = presentCommentBody({ body_format: 'markdown', body: 'Looks *good*.' }, 'document');
    expect('document' in answer && answer.document.object).toBe('document');
    expect('markdown' in answer).toBe(false);
  });

  it('answers a body whose parse belongs in the worker as written, never parsing it on the event loop', () => {
    // 300 inline delimiters in one paragraph: past what is parsed on the main thread.
    const dense = '*a'.repeat(300);
    expect(presentCommentBody({ body_format: 'markdown', body: dense }, 'document')).toEqual({ markdown: dense });
    const long = `${'word '.repeat(5000)}\n`;
    expect(presentCommentBody({ body_format: 'markdown', body: long }, 'document')).toEqual({ markdown: long });
  });
});
