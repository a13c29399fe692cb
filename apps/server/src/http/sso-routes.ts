import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { BadRequestError, PayloadTooLargeError } from '../errors.js';
import { startCliSignIn } from '../services/cli-auth-service.js';
import { completeSamlLogin, samlServiceMetadata, safeReturnPath, startSamlLogin } from '../services/saml-login-service.js';
import type { ServiceContext } from '../services/context.js';
import type { PresentContext } from './presenters/context.js';
import { samlServiceUrls } from './presenters/saml-presenter.js';
import { readSessionCookie, setSessionCookie } from './session-cookie.js';

/*
 * The browser side of single sign-on, outside the API: `/auth/saml/<providerId>/start` sends the browser to
 * the identity provider, `/auth/saml/<providerId>/acs` receives its answer (HTTP-POST binding) and starts a
 * session, `/auth/saml/<providerId>` is the service provider's entity id and serves its metadata.
 * `/auth/cli/start` hands a session over to the command line (services/cli-auth-service.ts).
 */

function param(req: Request, name: string): string {
  return String((req.params as Record<string, string | undefined>)[name] ?? '');
}

function queryString(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function ssoRouter(services: ServiceContext, present: PresentContext): Router {
  const router = Router();
  router.get('/auth/saml/:providerId/start', async (req: Request, res: Response) => {
    const providerId = param(req, 'providerId');
    const location = await startSamlLogin(services, providerId, samlServiceUrls(present, providerId), queryString(req, 'return'));
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, location);
  });

  // SAML responses are a few kilobytes; a larger form is not one. The form reader's own errors carry only a
  // status, which the error handler does not trust: they are answered as ours.
  const readForm = express.urlencoded({ extended: false, limit: '256kb' });
  const formBody = (req: Request, res: Response, next: NextFunction) => {
    readForm(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { status?: unknown }).status;
      next(status === 413 ? new PayloadTooLargeError('The form is too large for a SAML response') : new BadRequestError('The form could not be read'));
    });
  };
  router.post('/auth/saml/:providerId/acs', formBody, async (req: Request, res: Response) => {
    const providerId = param(req, 'providerId');
    const form = (req.body ?? {}) as Record<string, unknown>;
    const samlResponse = typeof form.SAMLResponse === 'string' ? form.SAMLResponse : undefined;
    const userAgent = req.headers['user-agent'];
    const session = await completeSamlLogin(services, providerId, samlServiceUrls(present, providerId), samlResponse, { userAgent, address: req.socket.remoteAddress });
    setSessionCookie(res, present, session.secret, session.expiresAt);
    const returnPath = safeReturnPath(typeof form.RelayState === 'string' ? form.RelayState : undefined);
    if (returnPath) {
      res.redirect(303, returnPath);
      return;
    }
    res.status(200).type('html').send(`<!doctype html><meta charset="utf-8"><title>Signed in</title><p>Signed in as ${escapeHtml(session.email)}.</p>`);
  });

  router.get('/auth/saml/:providerId', async (req: Request, res: Response) => {
    const providerId = param(req, 'providerId');
    res.type('application/samlmetadata+xml').send(await samlServiceMetadata(services, providerId, samlServiceUrls(present, providerId)));
  });

  router.get('/auth/cli/start', async (req: Request, res: Response) => {
    const redirect = queryString(req, 'redirect');
    const state = queryString(req, 'state');
    const providerId = queryString(req, 'provider');
    const next = await startCliSignIn(services, readSessionCookie(req), {
      ...(redirect !== undefined ? { redirect } : {}),
      ...(state !== undefined ? { state } : {}),
      ...(providerId !== undefined ? { providerId } : {}),
    });
    res.setHeader('Cache-Control', 'no-store');
    if (next.kind === 'code') {
      res.redirect(302, next.location);
      return;
    }
    // Sign in first, then come back here (the ACS redirects to this path once the session exists).
    const back = `/auth/cli/start${req.originalUrl.slice(req.originalUrl.indexOf('?'))}`;
    res.redirect(302, `/auth/saml/${encodeURIComponent(next.providerId)}/start?return=${encodeURIComponent(back)}`);
  });

  return router;
}
