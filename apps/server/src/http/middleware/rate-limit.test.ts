import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../errors.js';
import { createRateLimiter } from './rate-limit.js';

const request = (headers: Record<string, string>) => ({ headers, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
const response = () => ({ setHeader: () => undefined }) as unknown as ServerResponse;

describe('createRateLimiter with the in-process reader', () => {
  it('counts forwarded visitor addresses only with the process key; anyone else is keyed by its socket address', async () => {
    const limiter = createRateLimiter({ requestsPerWindow: 1, windowSeconds: 60, trustedForwarderKey: 'process-key' })!;
    const fromReader = (visitor: string) => request({ 'x-quire-reader': 'process-key', 'x-forwarded-for': visitor });
    await limiter.admit(fromReader('203.0.113.1'), response());
    // Another visitor of the reader has a budget of its own.
    await limiter.admit(fromReader('203.0.113.2'), response());
    // The loopback address itself still has its own budget...
    await limiter.admit(request({ 'x-forwarded-for': '203.0.113.9' }), response());
    // ...which a forwarded address without the key, or with a wrong one, does not escape.
    await expect(limiter.admit(request({ 'x-forwarded-for': '203.0.113.3' }), response())).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(limiter.admit(request({ 'x-quire-reader': 'guess', 'x-forwarded-for': '203.0.113.4' }), response())).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(limiter.admit(fromReader('203.0.113.1'), response())).rejects.toBeInstanceOf(TooManyRequestsError);
  });
});
