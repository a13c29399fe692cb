import type { components } from '@quire/api-types';
import { isInviteRedundant } from '../../policies/organization-invite-policy.js';
import { parseRole } from '../../policies/roles.js';
import type { InviteRecord } from '../../services/organization-invite-service.js';
import type { UsableInvite } from '../../services/invite-join-service.js';
import { presentCollection } from './collection-presenter.js';
import { appUrl, type PresentContext } from './context.js';
import { presentSpace } from './space-presenter.js';

export type ApiOrganizationInviteLink = components['schemas']['OrganizationInviteLink'];
export type ApiOrganizationEmailInvite = components['schemas']['OrganizationEmailInvite'];
export type ApiOrganizationInvitePreview = components['schemas']['OrganizationInvitePreview'];

export type ApiInviteLinkToOrganization = components['schemas']['InviteLinkToOrganization'];

/**
 * An invite link in the public API's form for what it is to: the organization (`role`), or one space or
 * collection (`level` and that content, as the caller sees it). The join address appears only in the answer
 * that made the invite, which alone has its path.
 */
export function presentInviteLink(context: PresentContext, record: InviteRecord): ApiOrganizationInviteLink {
  const { invite, callerRole, content, joinPath } = record;
  const common = {
    object: 'invite' as const,
    id: invite.id,
    createdAt: invite.created_at,
    expiresAt: invite.expires_at,
    maxUses: invite.max_uses,
    uses: invite.uses,
    ...(joinPath ? { url: appUrl(context, joinPath) } : {}),
  };
  // A link to content is stored with its level; a row without one would grant nothing, so it reads as `read`.
  const level = parseRole(invite.level) ?? 'read';
  if (content?.kind === 'space') return { ...common, level, redundant: isInviteRedundant(callerRole, level), space: presentSpace(context, content) };
  if (content?.kind === 'collection') return { ...common, level, redundant: isInviteRedundant(callerRole, level), collection: presentCollection(context, content) };
  return presentOrganizationInviteLink(context, record);
}

/** A link to the organization itself (the only kind `listOrganizationInviteLinks` answers). */
export function presentOrganizationInviteLink(context: PresentContext, { invite, callerRole, joinPath }: InviteRecord): ApiInviteLinkToOrganization {
  const role = parseRole(invite.role);
  return {
    object: 'invite',
    id: invite.id,
    role,
    redundant: isInviteRedundant(callerRole, role),
    createdAt: invite.created_at,
    expiresAt: invite.expires_at,
    maxUses: invite.max_uses,
    uses: invite.uses,
    ...(joinPath ? { url: appUrl(context, joinPath) } : {}),
  };
}

export function presentEmailInvite(context: PresentContext, { invite, joinPath }: InviteRecord): ApiOrganizationEmailInvite {
  return {
    object: 'email-invite',
    id: invite.id,
    email: invite.email!,
    role: parseRole(invite.role),
    expiresAt: invite.expires_at,
    ...(joinPath ? { url: appUrl(context, joinPath) } : {}),
  };
}

export function presentInvitePreview({ invite, organization, content }: UsableInvite): ApiOrganizationInvitePreview {
  const level = parseRole(invite.level);
  return {
    object: 'organization-invite-preview',
    organization: { id: organization.id, title: organization.title },
    role: parseRole(invite.role),
    ...(content ? { [content.target.kind]: { id: content.target.id, title: content.title } } : {}),
    ...(content && level ? { level } : {}),
    ...(invite.email ? { email: invite.email } : {}),
    expiresAt: invite.expires_at,
  };
}
