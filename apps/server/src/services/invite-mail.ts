import { nowIso } from '../ids.js';
import type { MailMessage } from '../net/mailer.js';
import { findInviteById, type InviteRow } from '../stores/organization-invite-store.js';
import { findOrganizationById } from '../stores/organization-store.js';
import { findUserById } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';
import { joinPath, openInviteSecret } from './invite-secrets.js';

/*
 * The mail of an invitation by e-mail, sent by the `invite.mail` job that inviteUsersToOrganization queued in
 * its transaction. A job that fails (the mail server down, refusing) is retried with backoff; one whose worker
 * dies after the server took the message sends it again, which a person can live with, where a lost
 * invitation would leave them outside.
 */

/** Whether the invitation is still worth mailing: revoked, used or expired ones are not. */
function stillWaiting(invite: InviteRow): boolean {
  return invite.revoked_at === null && invite.uses === 0 && invite.expires_at > nowIso();
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function invitationMessage(input: { to: string; organizationTitle: string; inviterName: string; joinAddress: string; expiresAt: string }): MailMessage {
  const expires = new Date(input.expiresAt).toUTCString();
  const text = [
    `${input.inviterName} invites you to join ${input.organizationTitle} on Quire.`,
    '',
    `Accept the invitation here: ${input.joinAddress}`,
    '',
    `The invitation works once, until ${expires}. If you did not expect it, ignore this message.`,
  ].join('\n');
  const html = [
    `<p>${escapeHtml(input.inviterName)} invites you to join <strong>${escapeHtml(input.organizationTitle)}</strong> on Quire.</p>`,
    `<p><a href="${escapeHtml(input.joinAddress)}">Accept the invitation</a></p>`,
    `<p>The invitation works once, until ${escapeHtml(expires)}. If you did not expect it, ignore this message.</p>`,
  ].join('\n');
  return { to: input.to, subject: `Join ${input.organizationTitle} on Quire`, text, html };
}

/**
 * Sends the invitation's mail, if it is still waiting. Throws (so the job is retried) when this process has
 * no mail server or the server refuses; the error never holds the join address.
 */
export async function sendInvitationMail(context: ServiceContext, inviteId: string): Promise<'sent' | 'not-waiting'> {
  const invite = await findInviteById(context.db, inviteId);
  if (!invite || invite.kind !== 'email' || !invite.email || !stillWaiting(invite)) return 'not-waiting';
  if (!context.mailer || !context.publicUrl) throw new Error('This process has no mail server (QUIRE_SMTP_URL): the invitation waits for one that has');
  const organization = await findOrganizationById(context.db, invite.organization_id);
  if (!organization) return 'not-waiting';
  const inviter = await findUserById(context.db, invite.created_by);
  const secret = await openInviteSecret(context.db, invite.sealed_secret, invite.id);
  const message = invitationMessage({
    to: invite.email,
    organizationTitle: organization.title,
    inviterName: inviter?.display_name ?? 'An administrator',
    joinAddress: `${context.publicUrl}${joinPath(secret)}`,
    expiresAt: invite.expires_at,
  });
  try {
    await context.mailer.send(message);
  } catch (error) {
    // The mail server's answer, without anything of the message (which holds the secret).
    const reason = error instanceof Error ? `${error.name}: ${(error as { code?: string }).code ?? ''} ${(error as { responseCode?: number }).responseCode ?? ''}`.trim() : 'unknown error';
    throw new Error(`The mail server did not take the invitation (${reason})`);
  }
  return 'sent';
}
