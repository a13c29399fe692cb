import type { NextFunction, Request, RequestHandler, Response } from 'express';

export interface LazyRouter extends RequestHandler {
  /** Builds the router now, if no request has yet. */
  warm(): Promise<void>;
}

/**
 * An Express router whose module (and the services under it) is imported by its first request or by the
 * warm-up once the server listens, not before: the routes of sign-in by SAML and OpenID Connect, raw OpenAPI
 * documents and integration assets were some 40 modules loaded before the first answer, which is an API
 * request none of them serve. A request arriving before it is built waits for it; a failed build goes to the
 * error handler and is tried again by the next request.
 */
export function lazyRouter(build: () => Promise<RequestHandler>): LazyRouter {
  let building: Promise<RequestHandler> | undefined;
  let built: RequestHandler | undefined;
  const load = (): Promise<RequestHandler> => {
    building ??= build().then(
      (router) => (built = router),
      (error: unknown) => {
        building = undefined;
        throw error;
      },
    );
    return building;
  };
  const router = ((req: Request, res: Response, next: NextFunction) => {
    if (built) return built(req, res, next);
    load().then((ready) => ready(req, res, next), next);
  }) as LazyRouter;
  router.warm = async () => {
    await load();
  };
  return router;
}
