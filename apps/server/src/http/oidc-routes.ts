import { Router, type Request, type Response } from 'express';
import { completeOidcLogin, startOidcLogin } from '../services/oidc-login-service.js';
import type { ServiceContext } from '../services/context.js';
import type { PresentContext } from './presenters/context.js';
import { setSessionCookie } from './session-cookie.js';

/*
 * The browser side of OpenID Connect sign-in, outside the API like SAML's: `/auth/oidc/start?return=<path>`
 * sends the browser to the installation's provider, `/auth/oidc/callback` receives its answer, opens a
 * session and sends the browser to the return path (a path of this installation only).
 */

/** Holds the PKCE code verifier between start and callback, for the callback paths only. */
const BINDING_COOKIE = 'quire_oidc';
const CALLBACK_PATH = '/auth/oidc';

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function oidcRouter(services: ServiceContext, present: PresentContext): Router {
  const router = Router();
  // Secure cookies only where the installation is served over HTTPS (a local install runs on plain HTTP).
  const secure = present.publicUrl.startsWith('https:');

  const clearBinding = (res: Response) => res.clearCookie(BINDING_COOKIE, { httpOnly: true, secure, sameSite: 'lax', path: CALLBACK_PATH });

  router.get('/auth/oidc/start', async (req: Request, res: Response) => {
    const returnPath = typeof req.query.return === 'string' ? req.query.return : undefined;
    const start = await startOidcLogin(services, present.publicUrl, returnPath);
    // Lax: the provider's redirect back is a top-level navigation, which carries it.
    res.cookie(BINDING_COOKIE, start.browserBinding, { httpOnly: true, secure, sameSite: 'lax', path: CALLBACK_PATH, maxAge: start.expiresInMs });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, start.location);
  });

  router.get('/auth/oidc/callback', async (req: Request, res: Response) => {
    const queryAt = req.originalUrl.indexOf('?');
    const search = queryAt === -1 ? '' : req.originalUrl.slice(queryAt);
    // The query holds the authorization code: an error logged with this request's URL must not carry it.
    req.url = req.path;
    // Whatever comes of it, the binding has served: the pending sign-in it belongs to is used up.
    clearBinding(res);
    res.setHeader('Cache-Control', 'no-store');
    // The code is in the address: no Referer of this page may carry it to another site.
    res.setHeader('Referrer-Policy', 'no-referrer');
    const signedIn = await completeOidcLogin(services, present.publicUrl, {
      search,
      browserBinding: cookie(req, BINDING_COOKIE),
      userAgent: req.get('user-agent')?.slice(0, 512),
      address: req.socket.remoteAddress,
    });
    // setSessionCookie replaces the Set-Cookie header, so the binding is cleared again after it.
    setSessionCookie(res, present, signedIn.secret, signedIn.expiresAt);
    clearBinding(res);
    if (signedIn.returnPath) {
      res.redirect(303, signedIn.returnPath);
      return;
    }
    res.status(200).type('html').send(`<!doctype html><meta charset="utf-8"><title>Signed in</title><p>Signed in as ${escapeHtml(signedIn.email)}.</p>`);
  });

  return router;
}
