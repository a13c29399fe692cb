/**
 * Why a content operation was refused. These are the caller's mistakes (an unknown page, a move into its own
 * subtree, a slug already taken...), so the service answers them with 400; the code lets it (and tests) tell
 * them apart without reading the message, and the message is written for the API client to read.
 */
export type ContentErrorCode =
  | 'page_not_found'
  | 'reusable_content_not_found'
  | 'file_not_found'
  | 'invalid_move'
  | 'invalid_parent'
  | 'invalid_position'
  | 'invalid_title'
  | 'invalid_slug'
  | 'slug_taken'
  | 'not_a_document'
  | 'empty_update'
  | 'duplicate_ref'
  | 'unknown_ref'
  | 'duplicate_id'
  | 'invalid_file'
  | 'file_too_large'
  | 'invalid_change'
  | 'content_limit';

export class ContentError extends Error {
  override readonly name = 'ContentError';
  readonly code: ContentErrorCode;
  /** Index of the change of a batch that failed, when the error comes from a batch. */
  readonly changeIndex: number | undefined;

  constructor(code: ContentErrorCode, message: string, changeIndex?: number) {
    super(message);
    this.code = code;
    this.changeIndex = changeIndex;
  }

  /** The same error, located at a change of a batch (its message says which, so the client can find it). */
  atChange(index: number): ContentError {
    return new ContentError(this.code, `changes[${index}]: ${this.message}`, index);
  }
}

/**
 * A stored object that a tree refers to is missing or malformed. This is a server fault (the store lost or
 * corrupted content), never the caller's, so it is a different class that the service must not turn into 400.
 */
export class CorruptContentError extends Error {
  override readonly name = 'CorruptContentError';
}
