import { createHash, type Hash } from 'node:crypto';

/*
 * What every file store does with a stream of bytes whose key is not known until its last byte: hash it as it
 * passes (the content core's blob key, whose header needs the length first, hence the declared size) and cut
 * it into pieces of a store's own size.
 */

/** The source gave more or fewer bytes than it declared; nothing was stored. */
export class BlobSizeMismatchError extends Error {
  override readonly name = 'BlobSizeMismatchError';
  constructor(readonly declared: number, readonly actual: number) {
    super(`the file was declared as ${declared} bytes but ${actual > declared ? 'more' : actual} came`);
  }
}

/** The content core's blob key (`hashObject('blob', bytes)`), computed over bytes as they stream by. */
export class BlobHasher {
  private readonly hash: Hash;
  private seen = 0;

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`not a file size: ${size}`);
    this.hash = createHash('sha256').update(`blob ${size}\0`, 'utf8');
  }

  update(chunk: Uint8Array): void {
    this.seen += chunk.byteLength;
    // Failing as soon as the source overshoots keeps a wrong stream from filling a store.
    if (this.seen > this.size) throw new BlobSizeMismatchError(this.size, this.seen);
    this.hash.update(chunk);
  }

  /** The key, once exactly `size` bytes went through `update`. */
  digest(): string {
    if (this.seen !== this.size) throw new BlobSizeMismatchError(this.size, this.seen);
    return this.hash.digest('hex');
  }
}

/**
 * The bytes of `source` again, in pieces of exactly `pieceSize` bytes (the last one shorter), hashed by
 * `hasher` on the way. At most one piece is held at a time.
 */
export async function* hashedPieces(source: AsyncIterable<Uint8Array>, pieceSize: number, hasher: BlobHasher): AsyncGenerator<Buffer> {
  let piece = Buffer.allocUnsafe(pieceSize);
  let filled = 0;
  for await (const chunk of source) {
    hasher.update(chunk);
    let offset = 0;
    while (offset < chunk.byteLength) {
      const taken = Math.min(pieceSize - filled, chunk.byteLength - offset);
      piece.set(chunk.subarray(offset, offset + taken), filled);
      filled += taken;
      offset += taken;
      if (filled === pieceSize) {
        yield piece;
        // A new buffer: the consumer may still hold the one just yielded (a database driver's parameter).
        piece = Buffer.allocUnsafe(pieceSize);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield piece.subarray(0, filled);
}
