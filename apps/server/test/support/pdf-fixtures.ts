import { deflateSync } from 'node:zlib';
import { expect } from 'vitest';

/*
 * Helpers for the PDF tests: a tiny reader for the uncompressed PDFs pdfkit writes (pages, outline titles,
 * text shown), and a PNG encoder so tests embed real images without fixtures.
 */

/** Page objects (`/Type /Page`, not `/Pages`) in an uncompressed PDF. */
export function countPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page(?![a-zA-Z])/g) ?? []).length;
}

/** Decodes a PDF string token: `(literal)` with escapes, or `<hex>`; UTF-16BE when it has a BOM. */
function decodePdfString(token: string): string {
  let bytes: Buffer;
  if (token.startsWith('<')) {
    bytes = Buffer.from(token.slice(1, -1).replace(/\s+/g, ''), 'hex');
  } else {
    const body = token.slice(1, -1).replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_, escape: string) => {
      const named: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
      return named[escape] ?? String.fromCharCode(parseInt(escape, 8));
    });
    bytes = Buffer.from(body, 'latin1');
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return bytes.subarray(2).swap16().toString('utf16le');
  return bytes.toString('latin1');
}

/** The `/Title` of every outline item (bookmark), in file order. */
export function outlineTitles(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const titles: string[] = [];
  // Outline items are the dictionaries with a /Parent and a /Title (the info dictionary has no /Parent).
  for (const match of text.matchAll(/<<([^]*?)>>\s*endobj/g)) {
    const dictionary = match[1]!;
    if (!/\/Parent\s/.test(dictionary)) continue;
    const title = /\/Title\s*(\((?:\\.|[^\\)])*\)|<[0-9a-fA-F\s]*>)/.exec(dictionary);
    if (title) titles.push(decodePdfString(title[1]!));
  }
  return titles;
}

/**
 * The text drawn on each page, in drawing order, runs joined by spaces (so a phrase broken over two lines
 * still reads as words). pdfkit writes standard-font text as hex strings in TJ arrays.
 */
export function pageTexts(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const streams = [...text.matchAll(/stream\n([^]*?)\nendstream/g)].map((match) => match[1]!);
  return streams
    .filter((stream) => /\bTJ\b/.test(stream))
    .map((stream) => [...stream.matchAll(/\[((?:<[0-9a-fA-F]*>|[-\d.\s])*)\]\s*TJ/g)]
      .map((tj) => [...tj[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((hex) => fromWinAnsi(Buffer.from(hex[1]!, 'hex'))).join(''))
      .join(' ')
      .replace(/\s+/g, ' '));
}

// Windows-1252's 0x80-0x9F, where it differs from Latin-1 (undefined positions stay as they are).
const WIN_ANSI_HIGH = '\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f'
  + '\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178';

function fromWinAnsi(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) out += byte >= 0x80 && byte <= 0x9f ? WIN_ANSI_HIGH[byte - 0x80]! : String.fromCharCode(byte);
  return out;
}

/** All text of the PDF as one string (see pageTexts). */
export function allText(pdf: Buffer): string {
  return pageTexts(pdf).join(' ');
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A PNG of `width` x `height` pixels filled by `pixel(x, y)` ([r, g, b] or [r, g, b, a] with alpha).
 * `rawIdat` replaces the compressed pixel data (for corrupt-image tests).
 */
export function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => number[],
  options: { alpha?: boolean; rawIdat?: Buffer; filter?: number } = {},
): Buffer {
  const channels = options.alpha ? 4 : 3;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = options.alpha ? 6 : 2;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * channels);
    row[0] = options.filter ?? 0;
    for (let x = 0; x < width; x++) {
      const value = pixel(x, y);
      for (let c = 0; c < channels; c++) row[1 + x * channels + c] = value[c] ?? 255;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', options.rawIdat ?? deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Downloads a PDF the API answered the URL of (built on QUIRE_PUBLIC_URL, so its origin is swapped for the
 * test server's) and checks that it is one: 200, application/pdf, and the PDF header.
 */
export async function fetchPdf(serverUrl: string, url: string): Promise<{ url: string; bytes: Buffer }> {
  const response = await fetch(url.replace(/^https?:\/\/[^/]+/, serverUrl));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return { url, bytes };
}
