import type { IncomingMessage } from 'node:http';

/** A form body refused: the status and what to say. */
export class FormRefusal extends Error {
  constructor(readonly status: 400 | 413 | 415, message: string) {
    super(message);
  }
}

/**
 * The fields of an `application/x-www-form-urlencoded` body of at most `limitBytes` (a longer one is refused
 * with 413 as soon as it passes the limit, so nothing larger is ever held).
 */
export async function readFormBody(req: IncomingMessage, limitBytes: number): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new FormRefusal(415, 'Send the form as application/x-www-form-urlencoded.');
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') throw new FormRefusal(415, 'Send the form without Content-Encoding.');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new FormRefusal(413, `The form is larger than ${limitBytes} bytes.`);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limitBytes) {
      req.destroy();
      throw new FormRefusal(413, `The form is larger than ${limitBytes} bytes.`);
    }
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
