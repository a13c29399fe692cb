import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { beginRequest, urlForLog } from './request-state.js';

describe('urlForLog', () => {
  it('keeps the path and ordinary parameters but hides share keys and download signatures', () => {
    expect(urlForLog('/v1/spaces/abc?shareKey=s3cret&limit=5')).toBe('/v1/spaces/abc?shareKey=[redacted]&limit=5');
    expect(urlForLog('/downloads/h/f.pdf?expires=1&sig=abcdef')).toBe('/downloads/h/f.pdf?expires=1&sig=[redacted]');
    expect(urlForLog('/v1/orgs?page=p2')).toBe('/v1/orgs?page=p2');
    expect(urlForLog(undefined)).toBe('');
    // An invitation's secret, in the address that joins with it and in its join address.
    expect(urlForLog('/v1/orgs/o1/invites/s3cret-invite?x=1')).toBe('/v1/orgs/o1/invites/[redacted]?x=1');
    expect(urlForLog('/join/s3cret-invite')).toBe('/join/[redacted]');
    expect(urlForLog('/v1/orgs/o1/invites')).toBe('/v1/orgs/o1/invites');
    expect(urlForLog('/v1/orgs/o1/link-invites/inv1')).toBe('/v1/orgs/o1/link-invites/inv1');
  });

  it('hides the secrets a reader sends to getPublishedContentByUrl, also inside the address it resolves', () => {
    expect(urlForLog('/v1/urls/published?url=x&shareKey=k1&visitorAuthToken=eyJ.a.b&limit=1')).toBe('/v1/urls/published?url=x&shareKey=[redacted]&visitorAuthToken=[redacted]&limit=1');
    const address = encodeURIComponent('https://docs.example.test/sites/d/page?visitor.plan=pro&shareKey=k2&jwt_token=eyJ.c.d');
    const logged = urlForLog(`/v1/urls/published?url=${address}&x=1`);
    expect(logged).toBe(`/v1/urls/published?url=${encodeURIComponent('https://docs.example.test/sites/d/page?visitor.plan=pro')}%26shareKey%3D[redacted]&x=1`);
    for (const secret of ['k1', 'k2', 'eyJ']) expect(logged).not.toContain(secret);
    expect(urlForLog('/sites/d/page?JWT_TOKEN=eyJ.e.f#top')).toBe('/sites/d/page?JWT_TOKEN=[redacted]#top');
  });
});

/** A logger whose lines are kept, parsed, in `lines`. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

/** Just enough of a request and its answer for beginRequest: headers in, headers and `finish` out. */
function fakeExchange(url: string, headers: Record<string, string>) {
  const req = { method: 'GET', url, headers } as unknown as IncomingMessage;
  const sent = new Map<string, unknown>();
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    setHeader: (name: string, value: unknown) => void sent.set(name.toLowerCase(), value),
  }) as unknown as ServerResponse;
  return { req, res, sent };
}

describe('beginRequest', () => {
  it('logs one line per finished request, with its id and no secret of the request', () => {
    const { logger, lines } = memoryLogger();
    const { req, res, sent } = fakeExchange('/v1/spaces/abc?shareKey=s3cret', { authorization: 'Bearer qk_secret', 'x-request-id': 'trace-1' });
    const state = beginRequest(req, res, logger);
    expect(state.requestId).toBe('trace-1');
    expect(sent.get('x-request-id')).toBe('trace-1');
    expect(lines).toHaveLength(0);
    res.statusCode = 404;
    res.emit('finish');
    res.emit('finish');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', reqId: 'trace-1', method: 'GET', url: '/v1/spaces/abc?shareKey=[redacted]', status: 404 });
    expect(lines[0]!.ms).toEqual(expect.any(Number));
    expect(JSON.stringify(lines[0])).not.toContain('secret');
  });

  it('logs neither the visitor token of the Authorization header nor the secrets of a published address', () => {
    const { logger, lines } = memoryLogger();
    const url = `/v1/urls/published?url=${encodeURIComponent('https://h.example.test/sites/d?shareKey=s3cret-key')}&visitorAuthToken=s3cret-jwt`;
    const { req, res } = fakeExchange(url, { authorization: 'Bearer qv1.s3cret-payload.s3cret-signature' });
    beginRequest(req, res, logger);
    res.emit('finish');
    logger.info({ req: { headers: { authorization: 'Bearer qv1.s3cret-payload.s3cret-signature' } } }, 'an error line with the request');
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('leaves the id header to the caller when asked (the reader writes it with a cached page\'s), logging all the same', () => {
    const { logger, lines } = memoryLogger();
    const { req, res, sent } = fakeExchange('/sites/docs', { 'x-request-id': 'trace-2' });
    expect(beginRequest(req, res, logger, false).requestId).toBe('trace-2');
    expect(sent.size).toBe(0);
    res.emit('finish');
    expect(lines[0]).toMatchObject({ msg: 'request', reqId: 'trace-2', url: '/sites/docs' });
  });

  it('replaces an unusable X-Request-Id with a fresh one', () => {
    const { logger } = memoryLogger();
    const { req, res } = fakeExchange('/v1/orgs', { 'x-request-id': 'has spaces and {braces}' });
    expect(beginRequest(req, res, logger).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves the redaction of other log lines in place', () => {
    const { logger, lines } = memoryLogger();
    const { req, res } = fakeExchange('/v1/orgs', {});
    beginRequest(req, res, logger);
    res.emit('finish');
    logger.info({ token: 'qk_secret', req: { headers: { authorization: 'Bearer qk_secret' } } }, 'something else');
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines[1])).not.toContain('qk_secret');
  });
});
