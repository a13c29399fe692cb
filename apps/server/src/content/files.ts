/*
 * What the content core needs to know about an uploaded file without trusting the client or installing
 * native image libraries: its media type (from its first bytes, else its name) and, for images, its size in
 * pixels, read from the format's header.
 */

export interface ImageDimensions {
  width: number;
  height: number;
}

const EXTENSION_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  bmp: 'image/bmp',
  avif: 'image/avif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  xml: 'application/xml',
  csv: 'text/csv',
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, i) => bytes[offset + i] === byte);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', start, end);
}

/** The media type told by the file's first bytes, for the formats with an unambiguous signature. */
export function sniffBytes(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(bytes, 0, 5) === '%PDF-') return 'application/pdf';
  if (isSvg(bytes)) return 'image/svg+xml';
  return undefined;
}

function isSvg(bytes: Uint8Array): boolean {
  // An SVG is XML whose root element is <svg>; look at the start only (prolog, comments, doctype first).
  const head = ascii(bytes, 0, Math.min(bytes.length, 4096)).replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(head);
}

/**
 * The media type of a file: as given when the caller gave one, else sniffed from its bytes, else guessed
 * from its extension, else `application/octet-stream`. Bytes win over the name because names lie more often
 * (a `.png` that is really a JPEG is common).
 */
export function detectContentType(name: string, bytes: Uint8Array, given?: string): string {
  if (given && given.trim() !== '') return given.trim();
  const sniffed = sniffBytes(bytes);
  if (sniffed) return sniffed;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (extension && EXTENSION_TYPES[extension]) || 'application/octet-stream';
}

/** Width and height in pixels for PNG, JPEG, GIF, WebP and SVG images; undefined when unknown or malformed. */
export function imageDimensions(bytes: Uint8Array, contentType?: string): ImageDimensions | undefined {
  const type = sniffBytes(bytes) ?? contentType;
  try {
    switch (type) {
      case 'image/png':
        return pngDimensions(bytes);
      case 'image/jpeg':
        return jpegDimensions(bytes);
      case 'image/gif':
        return gifDimensions(bytes);
      case 'image/webp':
        return webpDimensions(bytes);
      case 'image/svg+xml':
        return svgDimensions(bytes);
      default:
        return undefined;
    }
  } catch {
    // A truncated or malformed header reads past the end: the size is unknown, the upload still valid.
    return undefined;
  }
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function valid(width: number, height: number): ImageDimensions | undefined {
  return width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height) ? { width, height } : undefined;
}

function pngDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  // The first chunk must be IHDR: length (4), "IHDR", width (4, big-endian), height (4).
  if (ascii(bytes, 12, 16) !== 'IHDR') return undefined;
  const data = view(bytes);
  return valid(data.getUint32(16), data.getUint32(20));
}

function gifDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const data = view(bytes);
  return valid(data.getUint16(6, true), data.getUint16(8, true));
}

function jpegDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const data = view(bytes);
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    // Fill bytes (0xFF repeated) may precede a marker.
    if (marker === 0xff) {
      offset++;
      continue;
    }
    // Markers without a length: TEM, RST0-7, SOI, EOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      offset += 2;
      continue;
    }
    const length = data.getUint16(offset + 2);
    if (length < 2) return undefined;
    // Start-of-frame markers C0-CF carry the size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return valid(data.getUint16(offset + 7), data.getUint16(offset + 5));
    }
    offset += 2 + length;
  }
  return undefined;
}

function webpDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const chunk = ascii(bytes, 12, 16);
  const data = view(bytes);
  if (chunk === 'VP8 ') {
    // Lossy: a key frame starts with the 9D 01 2A start code, then 14-bit width and height.
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return undefined;
    return valid(data.getUint16(26, true) & 0x3fff, data.getUint16(28, true) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    // Lossless: signature 0x2F, then width-1 and height-1 in 14 bits each.
    if (bytes[20] !== 0x2f) return undefined;
    const bits = data.getUint32(21, true);
    return valid((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    // Extended: canvas width-1 and height-1 as 24-bit little-endian numbers.
    const width = bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16);
    const height = bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16);
    return valid(width + 1, height + 1);
  }
  return undefined;
}

function svgDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const head = ascii(bytes, 0, Math.min(bytes.length, 16384));
  const tag = /<svg\b([^>]*)>/i.exec(head)?.[1];
  if (tag === undefined) return undefined;
  const attribute = (name: string): string | undefined =>
    new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(1).find((v) => v !== undefined);
  // Only absolute lengths give a size; percentages and font-relative units depend on where it is shown.
  const length = (value: string | undefined): number | undefined => {
    const match = value === undefined ? null : /^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$/i.exec(value);
    return match ? Number(match[1]) : undefined;
  };
  const width = length(attribute('width'));
  const height = length(attribute('height'));
  const viewBox = attribute('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  const boxWidth = viewBox?.length === 4 ? viewBox[2] : undefined;
  const boxHeight = viewBox?.length === 4 ? viewBox[3] : undefined;
  if (width !== undefined && height !== undefined) return valid(width, height);
  // One given length and the view box's aspect ratio fix the other, as browsers do.
  if (boxWidth && boxHeight) {
    if (width !== undefined) return valid(width, (width * boxHeight) / boxWidth);
    if (height !== undefined) return valid((height * boxWidth) / boxHeight, height);
    return valid(boxWidth, boxHeight);
  }
  return undefined;
}
