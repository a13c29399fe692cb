import { inflateSync } from 'node:zlib';
import { imageDimensions, sniffBytes } from '../content/files.js';

/*
 * Which image bytes are safe to hand to pdfkit. pdfkit decodes some PNGs (alpha channel, transparency,
 * interlacing) in a zlib callback and throws there on a corrupt stream or an unknown row filter: an
 * exception no caller can catch, which would take the whole process down. So a PNG is checked here the
 * way that decoder will read it, and anything doubtful is shown as a placeholder instead of embedded.
 */

/** Larger images are not embedded: decoding allocates width x height x 8 bytes at worst. */
export const MAX_IMAGE_PIXELS = 40_000_000;
const MAX_IMAGE_SIDE = 20_000;

export type EmbeddableImage = { format: 'png' | 'jpeg'; bytes: Buffer; width: number; height: number };

export function embeddableImage(input: Uint8Array): EmbeddableImage | undefined {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const type = sniffBytes(bytes);
  if (type !== 'image/png' && type !== 'image/jpeg') return undefined;
  const size = imageDimensions(bytes, type);
  if (!size || size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE || size.width * size.height > MAX_IMAGE_PIXELS) return undefined;
  if (type === 'image/png' && !isDecodablePng(bytes)) return undefined;
  return { format: type === 'image/png' ? 'png' : 'jpeg', bytes, width: size.width, height: size.height };
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const BIT_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// Adam7: x0, y0, dx, dy of each pass, in the order the decoder reads them.
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;

/** Whether png-js (pdfkit's decoder) reads this PNG without throwing. */
export function isDecodablePng(bytes: Buffer): boolean {
  try {
    let pos = 8;
    let header: { width: number; height: number; bits: number; colorType: number; interlace: number } | undefined;
    const idat: Buffer[] = [];
    let ended = false;
    while (pos + 8 <= bytes.length && !ended) {
      const length = bytes.readUInt32BE(pos);
      const type = bytes.toString('latin1', pos + 4, pos + 8);
      const start = pos + 8;
      if (start + length + 4 > bytes.length) return false;
      const data = bytes.subarray(start, start + length);
      if (type === 'IHDR') {
        if (length < 13) return false;
        header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bits: data[8]!, colorType: data[9]!, interlace: data[12]! };
      } else if (type === 'IDAT') {
        idat.push(data);
      } else if (type === 'IEND') {
        ended = true;
      }
      pos = start + length + 4;
    }
    if (!header || idat.length === 0) return false;
    const channels = CHANNELS[header.colorType];
    if (channels === undefined || !BIT_DEPTHS[header.colorType]!.includes(header.bits) || header.interlace > 1) return false;
    if (header.colorType === 3 && !bytes.includes(Buffer.from('PLTE', 'latin1'))) return false;
    const bitsPerPixel = header.bits * channels;
    const passes = header.interlace === 1 ? ADAM7 : [[0, 0, 1, 1] as const];
    let expected = 0;
    const geometry = passes.map(([x0, y0, dx, dy]) => {
      const width = Math.ceil((header.width - x0) / dx);
      const rows = Math.ceil((header.height - y0) / dy);
      // The decoder reads `ceil(pixelBytes * width)` bytes per row, pixelBytes being bits / 8 (fractional
      // below 8 bits), which is the PNG row length.
      const rowBytes = Math.ceil((bitsPerPixel * Math.max(width, 0)) / 8);
      expected += Math.max(rows, 0) * (rowBytes + 1);
      return { rows: Math.max(rows, 0), rowBytes };
    });
    const data = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1024 });
    let at = 0;
    for (const { rows, rowBytes } of geometry) {
      for (let row = 0; row < rows && at < data.length; row++) {
        if (data[at]! > 4) return false;
        at += 1 + rowBytes;
      }
    }
    return true;
  } catch {
    return false;
  }
}
