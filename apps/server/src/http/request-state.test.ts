import { describe, expect, it } from 'vitest';
import { urlForLog } from './request-state.js';

describe('urlForLog', () => {
  it('keeps the path and ordinary parameters but hides share keys and download signatures', () => {
    expect(urlForLog('/v1/spaces/abc?shareKey=s3cret&limit=5')).toBe('/v1/spaces/abc?shareKey=[redacted]&limit=5');
    expect(urlForLog('/downloads/h/f.pdf?expires=1&sig=abcdef')).toBe('/downloads/h/f.pdf?expires=1&sig=[redacted]');
    expect(urlForLog('/v1/orgs?page=p2')).toBe('/v1/orgs?page=p2');
    expect(urlForLog(undefined)).toBe('');
  });
});
