import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RenderedPage } from '../pages/rendered-page.js';
import { sendPage } from './respond.js';

function fakeResponse() {
  const written: { status?: number; list?: string[]; headers?: Record<string, string>; body?: unknown; ended: boolean } = { ended: false };
  const res = {
    writeHead(status: number, list: string[]) {
      written.status = status;
      written.list = list;
      written.headers = Object.fromEntries(list.flatMap((value, at) => (at % 2 === 0 ? [[value, list[at + 1]!]] : [])));
      return res;
    },
    // The page's headers are written at once: none is set one by one.
    setHeader() {
      throw new Error('setHeader called');
    },
    end(body?: unknown) {
      written.body = body;
      written.ended = true;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}

const request = (method: string, headers: Record<string, string> = {}) => ({ method, headers }) as unknown as IncomingMessage;

const page = (status = 200): RenderedPage => ({ body: Buffer.from('<p>hi</p>'), etag: '"abc"', csp: "default-src 'none'", status, headers: new Map() });

describe('sendPage', () => {
  it('answers the page with its ETag, policy and length, and makes its headers once per visibility', () => {
    const rendered = page();
    const first = fakeResponse();
    sendPage(request('GET'), first.res, rendered, 'public');
    expect(first.written.status).toBe(200);
    expect(first.written.headers).toMatchObject({ ETag: '"abc"', 'Content-Security-Policy': "default-src 'none'", 'Content-Length': '9', 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, no-cache' });
    expect(first.written.body).toBe(rendered.body);
    const second = fakeResponse();
    sendPage(request('GET'), second.res, rendered, 'public');
    expect(second.written.list).toBe(first.written.list);
    const restricted = fakeResponse();
    sendPage(request('GET'), restricted.res, rendered, 'share-link');
    expect(restricted.written.headers).toMatchObject({ 'Cache-Control': 'private, no-cache', 'X-Robots-Tag': 'noindex' });
  });

  it('writes the server\'s first headers before the page\'s, in one list', () => {
    const { res, written } = fakeResponse();
    sendPage(request('GET'), res, page(), 'public', ['X-Request-Id', 'r1']);
    expect(written.list!.slice(0, 4)).toEqual(['X-Request-Id', 'r1', 'X-Content-Type-Options', 'nosniff']);
    expect(written.list!.slice(-4)).toEqual(['Content-Type', 'text/html; charset=utf-8', 'Content-Length', '9']);
    const notModified = fakeResponse();
    sendPage(request('GET', { 'if-none-match': '"abc"' }), notModified.res, page(), 'public', ['X-Request-Id', 'r2']);
    expect(notModified.written.status).toBe(304);
    expect(notModified.written.list!.slice(0, 2)).toEqual(['X-Request-Id', 'r2']);
  });

  it('answers 304 without a body when If-None-Match names the ETag among others', () => {
    const { res, written } = fakeResponse();
    sendPage(request('GET', { 'if-none-match': '"other", "abc"' }), res, page(), 'public');
    expect(written.status).toBe(304);
    expect(written.headers).toMatchObject({ ETag: '"abc"' });
    expect(written.headers!['Content-Length']).toBeUndefined();
    expect(written.body).toBeUndefined();
  });

  it('never answers 304 for a page that is not a 200, and sends no body to HEAD', () => {
    const notFound = fakeResponse();
    sendPage(request('GET', { 'if-none-match': '"abc"' }), notFound.res, page(404), 'public');
    expect(notFound.written.status).toBe(404);
    const head = fakeResponse();
    sendPage(request('HEAD'), head.res, page(), 'public');
    expect(head.written).toMatchObject({ status: 200, ended: true, body: undefined });
    expect(head.written.headers!['Content-Length']).toBe('9');
  });
});
