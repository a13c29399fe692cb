import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { BlobStore, LocalDiskBlobStorage } from './blob-storage.js';

/*
 * Moves the files of a single-machine install (its QUIRE_BLOB_DIR) into the configured store, the database
 * or S3, so that every process of a larger deployment reads them. Files are content-addressed, so the move
 * is resumable by construction: a file the store already has is skipped, and a run cut short is finished by
 * running it again. The disk copies are left in place (the server reads only the configured store), to be
 * deleted by the operator once the move is done and checked.
 */

export interface MoveFilesProgress {
  /** Files looked at so far, out of `files`. */
  done: number;
  files: number;
  moved: number;
  bytesMoved: number;
}

export interface MoveFilesResult {
  /** The stores' descriptions (`disk`, `database`, `s3://bucket/prefix`). */
  from: string;
  to: string;
  files: number;
  moved: number;
  /** Files the target had already: moved by an earlier run, or stored there by the server since. */
  alreadyMoved: number;
  bytesMoved: number;
}

export interface MoveFilesOptions {
  onProgress?: (progress: MoveFilesProgress) => void;
}

/** A file on disk whose bytes are not those its name says (damaged on disk): the move stops at it. */
export class DamagedFileError extends Error {
  override readonly name = 'DamagedFileError';
}

export async function moveFiles(source: LocalDiskBlobStorage, target: BlobStore, options: MoveFilesOptions = {}): Promise<MoveFilesResult> {
  // Listed first so that progress can say "of how many"; a file written meanwhile is for the next run.
  const listed: Array<{ hash: string; path: string }> = [];
  for await (const file of source.list()) listed.push(file);

  const progress: MoveFilesProgress = { done: 0, files: listed.length, moved: 0, bytesMoved: 0 };
  for (const { hash, path } of listed) {
    if (!(await target.has(hash))) {
      const { size } = await stat(path);
      const stored = await target.putStream(createReadStream(path), size);
      if (stored.hash !== hash) throw new DamagedFileError(`${path} does not hold the bytes its name says (they hash to ${stored.hash})`);
      progress.moved++;
      progress.bytesMoved += size;
    }
    progress.done++;
    options.onProgress?.({ ...progress });
  }
  return {
    from: source.description,
    to: target.description,
    files: progress.files,
    moved: progress.moved,
    alreadyMoved: progress.files - progress.moved,
    bytesMoved: progress.bytesMoved,
  };
}
