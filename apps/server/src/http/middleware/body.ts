import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.js';
import { JSON_CONTENT_TYPE } from '../openapi/route-validator.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

type Parser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * body-parser's refusals, told apart by the `type` it documents for each, as our errors. Anything else it
 * passes on (a failing stream) is not the caller's fault and stays what it is.
 */
function bodyError(error: unknown): unknown {
  const { type, limit } = (error ?? {}) as { type?: unknown; limit?: unknown };
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
 * Request bodies are JSON only: a body of another type is refused with 415 before it is read; an
 * unparsable one is a 400 and an oversized one a 413. After reading, the Content-Type header is normalised
 * so that validators only ever see "application/json" or nothing, which is what lets every validator be
 * compiled at start-up.
 */
export function jsonBodyReader(limitBytes: number): (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<void> {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true }) as unknown as Parser;
  return async (req, res) => {
    if (!hasBody(req)) {
      delete req.headers['content-type'];
      return;
    }
    const type = req.headers['content-type'];
    if (!type || !JSON_TYPE.test(type)) throw new UnsupportedMediaTypeError();
    await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(bodyError(error)) : resolve())));
    if (req.body === undefined) delete req.headers['content-type'];
    else req.headers['content-type'] = JSON_CONTENT_TYPE;
  };
}
