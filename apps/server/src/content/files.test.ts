import { describe, expect, it } from 'vitest';
import { detectContentType, imageDimensions, sniffBytes } from './files.js';

function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(24);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}

/** A JPEG with an APP0 segment, fill bytes, a DHT table, then the frame header `sof`. */
function jpeg(width: number, height: number, sof = 0xc0): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const dht = Buffer.from([0xff, 0xc4, 0x00, 0x04, 0x00, 0x00]);
  const frame = Buffer.from([0xff, 0xff, 0xff, sof, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, dht, frame]);
}

function gif(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(13);
  bytes.write('GIF89a', 0, 'latin1');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
}

function riff(chunk: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(12 + payload.length, 4);
  head.write('WEBP', 8, 'latin1');
  head.write(chunk, 12, 'latin1');
  head.writeUInt32LE(payload.length, 16);
  return Buffer.concat([head, payload]);
}

function webpLossy(width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload.set([0x9d, 0x01, 0x2a], 3);
  payload.writeUInt16LE(width, 6);
  payload.writeUInt16LE(height, 8);
  return riff('VP8 ', payload);
}

function webpLossless(width: number, height: number): Buffer {
  const payload = Buffer.alloc(5);
  payload[0] = 0x2f;
  payload.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
  return riff('VP8L', payload);
}

function webpExtended(width: number, height: number): Buffer {
  const payload = Buffer.alloc(10);
  payload.writeUIntLE(width - 1, 4, 3);
  payload.writeUIntLE(height - 1, 7, 3);
  return riff('VP8X', payload);
}

const svg = (attributes: string) => Buffer.from(`<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg" ${attributes}><rect/></svg>`);

describe('imageDimensions', () => {
  it('reads PNG, JPEG (baseline and progressive), GIF and the three WebP flavours', () => {
    expect(imageDimensions(png(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageDimensions(jpeg(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(imageDimensions(jpeg(300, 200, 0xc2))).toEqual({ width: 300, height: 200 });
    expect(imageDimensions(gif(16, 9))).toEqual({ width: 16, height: 9 });
    expect(imageDimensions(webpLossy(800, 600))).toEqual({ width: 800, height: 600 });
    expect(imageDimensions(webpLossless(123, 4567))).toEqual({ width: 123, height: 4567 });
    expect(imageDimensions(webpExtended(70000, 3))).toEqual({ width: 70000, height: 3 });
  });

  it('reads SVG sizes from width/height, else from the view box', () => {
    expect(imageDimensions(svg('width="120" height="40px"'))).toEqual({ width: 120, height: 40 });
    expect(imageDimensions(svg("viewBox='0 0 24 12'"))).toEqual({ width: 24, height: 12 });
    expect(imageDimensions(svg('width="48" viewBox="0 0 24 12"'))).toEqual({ width: 48, height: 24 });
    expect(imageDimensions(svg('width="100%" height="100%" viewBox="0,0,10,5"'))).toEqual({ width: 10, height: 5 });
    expect(imageDimensions(svg('width="2em"'))).toBeUndefined();
  });

  it('answers undefined for truncated or unknown data instead of throwing', () => {
    expect(imageDimensions(png(1, 1).subarray(0, 18))).toBeUndefined();
    expect(imageDimensions(jpeg(10, 10).subarray(0, 30))).toBeUndefined();
    expect(imageDimensions(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBeUndefined();
    expect(imageDimensions(Buffer.from('plain text'))).toBeUndefined();
    expect(imageDimensions(png(0, 10))).toBeUndefined();
  });
});

describe('content types', () => {
  it('sniffs formats by their signature', () => {
    expect(sniffBytes(png(1, 1))).toBe('image/png');
    expect(sniffBytes(jpeg(1, 1))).toBe('image/jpeg');
    expect(sniffBytes(gif(1, 1))).toBe('image/gif');
    expect(sniffBytes(webpLossy(1, 1))).toBe('image/webp');
    expect(sniffBytes(Buffer.from('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffBytes(svg('width="1" height="1"'))).toBe('image/svg+xml');
    expect(sniffBytes(Buffer.from('<html><svg></svg></html>'))).toBeUndefined();
  });

  it('prefers the given type, then the bytes, then the extension', () => {
    expect(detectContentType('a.png', png(1, 1), 'image/x-custom')).toBe('image/x-custom');
    expect(detectContentType('mislabelled.png', jpeg(1, 1))).toBe('image/jpeg');
    expect(detectContentType('README.MD', Buffer.from('# hi'))).toBe('text/markdown');
    expect(detectContentType('archive.tar.gz', Buffer.from([0x1f, 0x8b]))).toBe('application/gzip');
    expect(detectContentType('noextension', Buffer.from('??'))).toBe('application/octet-stream');
  });
});
