import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.js';
import { JSON_CONTENT_TYPE } from '../openapi/route-validator.js';

/** The encodings body-parser inflates (zstd needs a newer Node than 20, so it is not offered). */
const CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'];

/** `application/json; charset=utf-8` -> `application/json`. */
function mediaType(header: string): string {
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

type Parser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * body-parser's refusals, told apart by the `type` it documents for each, as our errors. Anything else it
 * passes on (a failing stream) is not the caller's fault and stays what it is.
 */
function bodyError(error: unknown, contentEncoding: string): unknown {
  const { type, limit, code } = (error ?? {}) as { type?: unknown; limit?: unknown; code?: unknown };
  // zlib's refusals of the bytes (Z_DATA_ERROR, Z_BUF_ERROR, ERR__ERROR_FORMAT_PADDING_1, ...) carry no
  // body-parser type: the body is not what its Content-Encoding says, which is the caller's mistake.
  if (type === undefined && contentEncoding !== 'identity' && typeof code === 'string' && /^(?:Z_|ERR_)/.test(code)) {
    return new BadRequestError(`The request body is not valid ${contentEncoding} data, as its Content-Encoding says`);
  }
  switch (type) {
    case 'entity.too.large':
      return new PayloadTooLargeError(`The request body is larger than the limit of ${String(limit)} bytes`);
    case 'entity.parse.failed':
      return new BadRequestError('The request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('The request body must be JSON encoded as UTF-8');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new BadRequestError('The request body could not be read');
    default:
      return error;
  }
}

/**
 * Request bodies are JSON only, sent with a media type the operation's contract declares (`declaredTypes`,
 * all JSON; `application/json` for operations that declare no body): any other type, even a JSON-like one
 * such as `application/json-patch+json`, is refused with 415 before it is read, as is an unknown
 * Content-Encoding; a body that does not match its encoding or is not JSON is a 400 and an oversized one
 * (after inflation) a 413. After reading, the Content-Type header is normalised so that validators only ever
 * see "application/json" or nothing, which is what lets every validator be compiled at start-up.
 */
export function jsonBodyReader(limitBytes: number, declaredTypes: readonly string[] = [JSON_CONTENT_TYPE]): (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<void> {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true }) as unknown as Parser;
  const accepted = new Set(declaredTypes.map(mediaType));
  const typeMessage = `Request bodies of this operation must be sent with Content-Type: ${[...accepted].join(' or ')}`;
  return async (req, res) => {
    if (!hasBody(req)) {
      delete req.headers['content-type'];
      return;
    }
    const type = req.headers['content-type'];
    if (!type || !accepted.has(mediaType(type))) throw new UnsupportedMediaTypeError(typeMessage);
    const contentEncoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (!CONTENT_ENCODINGS.includes(contentEncoding)) {
      throw new UnsupportedMediaTypeError(`Content-Encoding ${contentEncoding} is not supported: send identity, gzip, deflate or br`);
    }
    await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(bodyError(error, contentEncoding)) : resolve())));
    if (req.body === undefined) delete req.headers['content-type'];
    else req.headers['content-type'] = JSON_CONTENT_TYPE;
  };
}
