import { createHmac, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { visitorGrantHolds, visitorMayCall, type MemberTokenState, type VisitorGrant } from '../policies/visitor-policy.js';
import type { SiteVisibilityName } from '../policies/site-policy.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import { findMembership } from '../stores/organization-store.js';
import { findShareLink } from '../stores/site-share-link-store.js';
import { findSiteState } from '../stores/site-store.js';
import { findVisitorAuthKeyId } from '../stores/site-visitor-auth-store.js';
import { findTokenState } from '../stores/token-store.js';
import { findBrowserSessionState } from '../stores/browser-session-store.js';
import { sessionEndsAt } from './browser-session-service.js';
import type { VisitorCaller } from './caller.js';
import type { ServiceContext } from './context.js';
import { serverSecret } from './server-secret-service.js';

/*
 * Visitor tokens: `qv1.<payload>.<signature>`, the payload the JSON of a VisitorGrant (base64url) and the
 * signature its HMAC-SHA256 under a server secret of their own, so that every node of a deployment verifies
 * what another issued, and no other use of a server secret can forge one. They are short-lived and not
 * stored: what could change since they were issued (the site published, its visibility, the share link, the
 * visitor-auth key, the membership and token of the member it names) is read again on every request instead (visitor-policy's `visitorGrantHolds`).
 */

export const VISITOR_TOKEN_PREFIX = 'qv1.';
/** Seconds a visitor token is good for. */
export const VISITOR_TOKEN_LIFETIME = 15 * 60;
const SECRET_NAME = 'visitor-api-tokens';

interface Payload {
  o: string;
  s: string;
  v: SiteVisibilityName;
  l?: string;
  k?: string;
  /** The member's user id and token id or session id, when membership opened the site. */
  mu?: string;
  mt?: string;
  ms?: string;
  ss: string[];
  sc: string[];
  exp: number;
}

async function sign(context: ServiceContext, body: string): Promise<string> {
  return createHmac('sha256', await serverSecret(context.db, SECRET_NAME)).update(body, 'utf8').digest('base64url');
}

export function isVisitorToken(token: string): boolean {
  return token.startsWith(VISITOR_TOKEN_PREFIX);
}

export async function issueVisitorToken(context: ServiceContext, grant: Omit<VisitorGrant, 'expiresAt'>, nowSeconds = Math.floor(Date.now() / 1000)): Promise<{ token: string; expiresAt: number }> {
  const expiresAt = nowSeconds + VISITOR_TOKEN_LIFETIME;
  const payload: Payload = {
    o: grant.organizationId, s: grant.siteId, v: grant.visibility,
    ...(grant.shareLinkId !== undefined ? { l: grant.shareLinkId } : {}),
    ...(grant.visitorAuthKeyId !== undefined ? { k: grant.visitorAuthKeyId } : {}),
    ...(grant.member !== undefined ? { mu: grant.member.userId, ...(grant.member.tokenId !== undefined ? { mt: grant.member.tokenId } : {}), ...(grant.member.sessionId !== undefined ? { ms: grant.member.sessionId } : {}) } : {}),
    ss: [...grant.siteSpaceIds], sc: [...grant.sectionIds], exp: expiresAt,
  };
  const body = VISITOR_TOKEN_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return { token: `${body}.${await sign(context, body)}`, expiresAt };
}

/** The token or browser session a member's grant names, as the visitor policy weighs it (its expiry, its scope). */
async function memberCredentialState(context: ServiceContext, member: NonNullable<VisitorGrant['member']>): Promise<MemberTokenState | undefined> {
  if (member.tokenId !== undefined) return findTokenState(context.db, member.tokenId);
  if (member.sessionId === undefined) return undefined;
  const session = await findBrowserSessionState(context.db, member.sessionId);
  return session && { user_id: session.user_id, organization_id: session.organization_id, expires_at: sessionEndsAt(context, session) };
}

const refused = () => new UnauthorizedError('The visitor token is malformed, forged or expired: resolve the address again');

/** The grant a token carries, when its signature is ours and it has not expired; 401 otherwise. */
async function verifiedGrant(context: ServiceContext, token: string): Promise<VisitorGrant> {
  const dot = token.lastIndexOf('.');
  if (!isVisitorToken(token) || dot <= VISITOR_TOKEN_PREFIX.length) throw refused();
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = Buffer.from(await sign(context, body), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body.slice(VISITOR_TOKEN_PREFIX.length), 'base64url').toString('utf8')) as Payload;
  } catch {
    throw refused();
  }
  if (payload.exp <= Math.floor(Date.now() / 1000)) throw refused();
  return {
    organizationId: payload.o, siteId: payload.s, visibility: payload.v,
    ...(payload.l !== undefined ? { shareLinkId: payload.l } : {}),
    ...(payload.k !== undefined ? { visitorAuthKeyId: payload.k } : {}),
    ...(typeof payload.mu === 'string' && typeof payload.mt === 'string' ? { member: { userId: payload.mu, tokenId: payload.mt } } : {}),
    ...(typeof payload.mu === 'string' && typeof payload.ms === 'string' ? { member: { userId: payload.mu, sessionId: payload.ms } } : {}),
    siteSpaceIds: payload.ss, sectionIds: payload.sc, expiresAt: payload.exp,
  };
}

/**
 * Authenticates a request made with a visitor token for `operationId`: 401 for a forged or expired token,
 * 403 for an operation outside the visitor's reads, 401 when the site no longer opens to it (unpublished,
 * visibility changed, share link deactivated or deleted, visitor-auth key rotated, the member it names removed,
 * disabled or their token revoked or expired). Indexed lookups only.
 */
export async function authenticateVisitor(context: ServiceContext, token: string, operationId: string): Promise<VisitorCaller> {
  const grant = await verifiedGrant(context, token);
  if (!visitorMayCall(operationId)) throw new ForbiddenError('A visitor token only reads the published content of its site');
  // Independent reads, made together (one round trip on PostgreSQL); a member's grant adds their token and
  // membership, each by primary key.
  const member = grant.member;
  const [site, link, keyId, memberToken, membership] = await Promise.all([
    findSiteState(context.db, grant.siteId),
    grant.shareLinkId !== undefined ? findShareLink(context.db, grant.siteId, grant.shareLinkId) : undefined,
    grant.visitorAuthKeyId !== undefined ? findVisitorAuthKeyId(context.db, grant.siteId) : undefined,
    member !== undefined ? memberCredentialState(context, member) : undefined,
    member !== undefined ? findMembership(context.db, grant.organizationId, member.userId) : undefined,
  ]);
  const holds = visitorGrantHolds(grant, {
    site,
    ...(grant.shareLinkId !== undefined ? { shareLinkActive: link?.active === 1 } : {}),
    ...(keyId !== undefined ? { visitorAuthKeyId: keyId } : {}),
    ...(grant.member !== undefined ? { member: { token: memberToken, membership: membership ? membershipFromRow(membership) : undefined } } : {}),
  }, Math.floor(Date.now() / 1000));
  if (!holds) throw new UnauthorizedError('The site no longer opens to this visitor token: resolve the address again');
  return { grant };
}
