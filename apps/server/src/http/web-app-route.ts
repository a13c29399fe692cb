import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router, type Request, type Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../errors.js';

/*
 * The app (`apps/web`, built by Vite into its dist/) at `/`, and the rendered API reference (`apps/docs`) at
 * `/docs`, on the API's own port, so the session cookie is same-origin and no second server is needed.
 *
 * - `/assets/*`: Vite's hashed files. A name changes with its content, so they are cached for a year. The build
 *   writes each compressed beside itself (`.br`, `.gz`): the one the browser accepts is sent, brotli first.
 * - The app's addresses (the `urls.app` the API answers: `/o/...`, `/integrations/...`, the sign-in and join
 *   screens, and `/`) answer index.html, never cached without revalidation, so a new build is picked up at
 *   the next navigation. Only these prefixes do: `/v1`, `/auth`, `/healthz`, downloads and every other server
 *   route keep their own answers (a mistyped API address is a 404 in the error shape, not the app's page).
 * - The app's pages run under a Content-Security-Policy without inline script: the build emits none.
 */

export interface WebAppOptions {
  /** The app's build (apps/web/dist); absent until `npx turbo run build` made it. */
  appDir: string;
  /** The API reference's build (apps/docs/dist). */
  docsDir: string;
}

const APP_PREFIXES = ['/o/', '/join/', '/integrations/'];
const APP_PAGES = new Set(['/', '/sign-in']);

/** Whether a path is one of the app's own addresses, answered with its page. */
export function isAppPath(pathname: string): boolean {
  return APP_PAGES.has(pathname) || APP_PREFIXES.some((prefix) => pathname.startsWith(prefix) && pathname.length > prefix.length);
}

export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** A built file, read once: the builds do not change while the server runs. */
function builtFile(path: string): () => Buffer {
  let contents: Buffer | undefined;
  return () => {
    if (contents) return contents;
    if (!existsSync(path)) throw new ServiceUnavailableError(`${path} is not built: run npx turbo run build`);
    contents = readFileSync(path);
    return contents;
  };
}

function sendHtml(res: Response, html: Buffer, headers: Record<string, string>): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(200).end(html);
}

export function webAppRouter(options: WebAppOptions): Router {
  const router = Router();
  const appPage = builtFile(join(options.appDir, 'index.html'));
  const docsPage = builtFile(join(options.docsDir, 'index.html'));

  // An address that does not decode is refused here, in the error shape (the file server would answer plain text).
  router.use('/assets', (req: Request, _res: Response, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      throw new BadRequestError(`The address ${req.originalUrl} is not valid percent-encoding`);
    }
    next();
  });
  router.use(
    '/assets',
    expressStaticGzip(join(options.appDir, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br'],
      serveStatic: {
        index: false,
        fallthrough: true,
        etag: true,
        setHeaders: (res) => {
          res.setHeader('Cache-Control', `public, max-age=${YEAR_SECONDS}, immutable`);
          res.setHeader('X-Content-Type-Options', 'nosniff');
        },
      },
    }),
  );
  router.use('/assets', (req: Request) => {
    throw new NotFoundError(`No file of the app at ${req.originalUrl}`);
  });

  // The reference is Redocly's single page with its renderer inlined, so it carries no script policy of ours.
  router.get(['/docs', '/docs/'], (_req: Request, res: Response) => {
    sendHtml(res, docsPage(), { 'X-Frame-Options': 'DENY' });
  });

  router.get(/.*/, (req: Request, res: Response, next) => {
    if (!isAppPath(req.path)) return next();
    sendHtml(res, appPage(), { 'Content-Security-Policy': APP_CONTENT_SECURITY_POLICY, 'X-Frame-Options': 'DENY' });
  });
  return router;
}

/** Where the builds are in this repository: beside the server's package, found through the workspace. */
export function defaultWebAppOptions(resolvePackage: (name: string) => string): WebAppOptions {
  return {
    appDir: join(resolvePackage('@quire/web'), 'dist'),
    docsDir: join(resolvePackage('@quire/docs'), 'dist'),
  };
}
