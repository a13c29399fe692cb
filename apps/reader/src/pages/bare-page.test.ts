import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../api/api-failure.js';
import { bareDocument, laterFailure, lookupFailure } from './bare-page.js';

describe('lookupFailure', () => {
  it("tells the visitor why for the API's 404, 401 and 400, and answers anything else as 502", () => {
    expect(lookupFailure(new ApiFailure(404, 'x'))).toMatchObject({ status: 404, title: 'Not found' });
    expect(lookupFailure(new ApiFailure(401, 'x'))).toMatchObject({ status: 401, title: 'Sign-in needed' });
    expect(lookupFailure(new ApiFailure(400, 'x'))).toMatchObject({ status: 400, title: 'Bad address' });
    expect(lookupFailure(new ApiFailure(403, 'x'))).toMatchObject({ status: 502, title: 'Unavailable' });
    expect(lookupFailure(new ApiFailure(500, 'x'))).toMatchObject({ status: 502 });
    expect(lookupFailure(new TypeError('fetch failed'))).toMatchObject({ status: 502 });
  });
});

describe('laterFailure', () => {
  it("answers the API's 404 as a 404 and every other failure as a 502", () => {
    expect(laterFailure(new ApiFailure(404, 'x'))).toMatchObject({ status: 404, title: 'Not found' });
    expect(laterFailure(new ApiFailure(401, 'x'))).toMatchObject({ status: 502, title: 'Unavailable' });
    expect(laterFailure(new Error('boom'))).toMatchObject({ status: 502 });
  });
});

describe('bareDocument', () => {
  it('escapes its title and message, and asks robots not to index it', () => {
    const html = bareDocument({ css: '/_reader/h/reader.css', js: '/_reader/h/reader.js' }, '<b>T</b>', 'a & b');
    expect(html).toContain('<title>&lt;b&gt;T&lt;/b&gt;</title>');
    expect(html).toContain('<p>a &amp; b</p>');
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).not.toContain('<b>');
  });
});
