import { Router, type Request, type Response } from 'express';
import { NotFoundError } from '../errors.js';
import type { ServiceContext } from '../services/context.js';
import { integrationAsset } from '../services/integration-service.js';

/*
 * `GET /integration-assets/<name>/<version>/<key>/<file>`: the files of a published integration version
 * (the `urls.assets` of the integration). The key in the path is the authorization (no bearer token, so the
 * URL works in an <img> tag); the answer redirects to a signed download URL of the stored bytes, which
 * serves them with the storage's headers (type, caching, a sandboxing policy for SVG).
 */
export function integrationAssetsRouter(services: ServiceContext): Router {
  const router = Router();
  router.get('/integration-assets/:name/:version/:key/:file', async (req: Request, res: Response) => {
    const { name = '', version = '', key = '', file = '' } = req.params as Record<string, string | undefined>;
    const asset = await integrationAsset(services, name, version, key, file);
    if (!asset || !services.urlSigner) throw new NotFoundError('No integration file is at this address');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, services.urlSigner.sign({ hash: asset.hash, filename: asset.filename, contentType: asset.contentType }));
  });
  return router;
}
