import { Router, type Request, type Response } from 'express';
import { NotFoundError } from '../errors.js';
import { authenticate } from '../services/auth-service.js';
import type { ServiceContext } from '../services/context.js';
import { rawOpenApiSpecVersion } from '../services/openapi-spec-service.js';
import { bearerTokenHash } from './request-state.js';

/*
 * `GET /openapi/<organization>/<slug>/<version or latest>`: the raw document of a version of an OpenAPI
 * specification (the `url` of versions and contents, `urls.published` of public specs). A public spec is
 * served to anyone, so that tools and readers can fetch it without a token; a private one only with the
 * bearer token of a member. Anything the caller may not read answers 404, like a spec that does not exist.
 */
export function openApiRawRouter(services: ServiceContext): Router {
  const router = Router();
  router.get('/openapi/:organizationId/:slug/:versionId', async (req: Request, res: Response) => {
    const { organizationId = '', slug = '', versionId = '' } = req.params as Record<string, string | undefined>;
    const tokenHash = bearerTokenHash(req);
    const caller = tokenHash === undefined ? undefined : await authenticate(services, tokenHash);
    const raw = await rawOpenApiSpecVersion(services, caller, organizationId, slug, versionId);
    if (!raw) throw new NotFoundError('No OpenAPI specification version is at this address');
    res.setHeader('Content-Type', raw.format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8');
    // Private documents must not be kept by shared caches; `latest` changes with each version.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).send(raw.text);
  });
  return router;
}
