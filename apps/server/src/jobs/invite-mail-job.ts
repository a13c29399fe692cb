import { sendInvitationMail } from '../services/invite-mail.js';
import { INVITE_MAIL_JOB } from '../services/organization-invite-service.js';
import type { JobHandler } from './runner.js';

export { INVITE_MAIL_JOB };

function inviteIdOf(payload: unknown): string {
  const inviteId = (payload as { inviteId?: unknown } | null)?.inviteId;
  if (typeof inviteId !== 'string') throw new Error('invite.mail payload must be {"inviteId": string}');
  return inviteId;
}

/** Mails an invitation by e-mail (services/invite-mail.ts); one revoked, used or expired meanwhile is not sent. */
export function inviteMailJob(): JobHandler {
  return async (payload, { services }) => {
    await sendInvitationMail(services, inviteIdOf(payload));
  };
}
