import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { lazyRouter } from './lazy-router.js';

const noRequest = {} as Request;
const noResponse = {} as Response;

describe('lazyRouter', () => {
  it('builds its router with the first request (which it then serves), once, and not before', async () => {
    let builds = 0;
    const served: string[] = [];
    const router = lazyRouter(async () => {
      builds++;
      return ((_req, _res, next) => { served.push('served'); next(); }) as RequestHandler;
    });
    expect(builds).toBe(0);
    const passed = await Promise.all([1, 2].map(() => new Promise<unknown>((resolve) => router(noRequest, noResponse, resolve as NextFunction))));
    expect(passed).toEqual([undefined, undefined]);
    await router.warm();
    expect(builds).toBe(1);
    expect(served).toEqual(['served', 'served']);
  });

  it('hands a failed build to the error handler and builds again for the next request', async () => {
    let builds = 0;
    const router = lazyRouter(async () => {
      if (++builds === 1) throw new Error('could not load');
      return ((_req, _res, next) => next()) as RequestHandler;
    });
    const first = await new Promise<unknown>((resolve) => router(noRequest, noResponse, resolve as NextFunction));
    expect(first).toBeInstanceOf(Error);
    const second = await new Promise<unknown>((resolve) => router(noRequest, noResponse, resolve as NextFunction));
    expect(second).toBeUndefined();
    expect(builds).toBe(2);
  });
});
