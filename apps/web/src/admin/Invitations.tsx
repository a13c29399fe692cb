import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { CopyField } from './CopyField.js';
import { adminKey, useOrganization, useOrganizationId } from './organization.js';
import { RoleSelect } from './RoleSelect.js';
import { RowAction } from './RowAction.js';
import { roleLabel, type RoleOrGuest } from './roles.js';

/** Addresses typed one per line, or separated by commas or spaces. */
function addressesIn(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((part) => part.trim()).filter(Boolean))];
}

const isPast = (at: string) => Date.parse(at) <= Date.now();

/** Inviting people: by e-mail (with the invitations still waiting), and by link (made, copied once, revoked). */
export default function Invitations() {
  const organizationId = useOrganizationId();
  const organization = useOrganization(organizationId);
  if (organization.isPending) return <Loading label="Loading the organization" />;
  if (organization.isError) return <ErrorNotice title="This organization could not be opened" error={organization.error} />;
  if (!organization.data.permissions.admin) {
    return (
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Invitations</h2>
        <p>Only the organization&apos;s admins can invite people. Ask one of them for an invitation for the person you have in mind.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <InviteByEmail organizationId={organizationId} />
      <PendingInvitations organizationId={organizationId} />
      <InviteLinks organizationId={organizationId} linksOn={organization.data.inviteLinks} />
    </section>
  );
}

function InviteByEmail({ organizationId }: { organizationId: string }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [role, setRole] = useState<RoleOrGuest>('read');
  const invite = useMutation({
    mutationFn: (emails: string[]) => unwrap(api.POST('/orgs/{organizationId}/invites', { params: { path: { organizationId } }, body: { emails, role } })),
    onSuccess: async () => {
      setText('');
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'invites') });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(addressesIn(text));
  };
  const asked = invite.variables?.length ?? 0;
  // A join address stays on screen only while its invitation waits: once revoked it opens nothing.
  const waiting = new Set(usePendingInvitations(organizationId).data?.map((pending) => pending.id));
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="invite-email-title">
      <h3 id="invite-email-title">Invite by email</h3>
      <label htmlFor="invite-emails">Email addresses</label>
      <textarea id="invite-emails" rows={3} required aria-describedby="invite-emails-hint" value={text} onChange={(event) => setText(event.target.value)} />
      <p id="invite-emails-hint" className="hint">
        One address per line, or separated by commas. Each invitation works once, for 7 days.
      </p>
      <div className="field-row">
        <label htmlFor="invite-role">Role</label>
        <RoleSelect id="invite-role" value={role} withGuest onChange={setRole} />
        <button type="submit" disabled={invite.isPending || addressesIn(text).length === 0}>
          Send invitations
        </button>
      </div>
      {invite.isSuccess ? (
        <div role="status">
          <p>
            {invite.data.invited === 1 ? '1 invitation made' : `${invite.data.invited} invitations made`}
            {invite.data.invited < asked ? ` (${asked - invite.data.invited} of the addresses are members already)` : ''}.
          </p>
          {invite.data.invites.some((made) => made.url) ? <p>This Quire sends no mail: pass each person their join address.</p> : null}
        </div>
      ) : null}
      {invite.data?.invites.map((made) =>
        made.url && waiting.has(made.id) ? <CopyField key={made.id} id={`join-${made.id}`} label={`Join address for ${made.email}`} value={made.url} copyLabel={`Copy the address for ${made.email}`} /> : null,
      )}
      {invite.isError ? <ErrorNotice title="Nobody was invited" message={errorMessage(invite.error)} /> : null}
    </form>
  );
}

/** The e-mail invitations still waiting (listPendingOrganizationInvites), one cache entry for the whole screen. */
function usePendingInvitations(organizationId: string) {
  return useQuery({
    queryKey: adminKey(organizationId, 'invites', 'pending'),
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/invites', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
}

/** Revokes an invitation, by email or by link alike (one operation), and reloads both lists. */
function useRevokeInvite(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (inviteId: string) => unwrap(api.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId, inviteId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'invites') }),
  });
}

/** Until when an invitation works, or that it no longer does. */
function ExpiryCell({ expiresAt }: { expiresAt: string }) {
  return <td>{isPast(expiresAt) ? <span className="badge">Expired</span> : new Date(expiresAt).toLocaleString()}</td>;
}

/**
 * A table of invitations (by email or by link): a row each, named by its first cell, then the invitation's
 * own cells, until when it works, and its Revoke button (named by the row).
 */
function InviteTable<T extends { id: string; expiresAt: string }>({ labelledBy, idPrefix, columns, invites, rowName, cells, revokeLabel, revoke }: {
  labelledBy: string;
  idPrefix: string;
  columns: string[];
  invites: T[];
  rowName: (invite: T) => string;
  cells: (invite: T) => ReactNode;
  revokeLabel: string;
  revoke: ReturnType<typeof useRevokeInvite>;
}) {
  return (
    <table className="admin-table" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          {[...columns, 'Works until', 'Actions'].map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {invites.map((invite) => (
          <tr key={invite.id}>
            <th scope="row" id={`${idPrefix}-${invite.id}`}>
              {rowName(invite)}
            </th>
            {cells(invite)}
            <ExpiryCell expiresAt={invite.expiresAt} />
            <td>
              <RowAction id={`${idPrefix}-${invite.id}-revoke`} rowNameId={`${idPrefix}-${invite.id}`} disabled={revoke.isPending} onClick={() => revoke.mutate(invite.id)}>
                {revokeLabel}
              </RowAction>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function PendingInvitations({ organizationId }: { organizationId: string }) {
  const pending = usePendingInvitations(organizationId);
  const revoke = useRevokeInvite(organizationId);
  return (
    <section aria-labelledby="pending-title">
      <h3 id="pending-title">Waiting for an answer</h3>
      {pending.isPending ? <Loading label="Loading the invitations" /> : null}
      {pending.isError ? <ErrorNotice title="The invitations could not be loaded" error={pending.error} /> : null}
      {pending.data?.length === 0 ? <p>No invitation by email is waiting.</p> : null}
      {pending.data?.length ? (
        <InviteTable
          labelledBy="pending-title"
          idPrefix="pending"
          columns={['Email', 'Role']}
          invites={pending.data}
          rowName={(invite) => invite.email}
          cells={(invite) => <td>{roleLabel(invite.role)}</td>}
          revokeLabel="Revoke"
          revoke={revoke}
        />
      ) : null}
      {revoke.isError ? <ErrorNotice title="The invitation was not revoked" message={errorMessage(revoke.error)} /> : null}
    </section>
  );
}

function InviteLinks({ organizationId, linksOn }: { organizationId: string; linksOn: boolean }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<RoleOrGuest>('read');
  const links = useQuery({
    queryKey: adminKey(organizationId, 'invites', 'links'),
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/link-invites', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'invites') });
  const turnOn = useMutation({
    mutationFn: () => unwrap(api.PATCH('/orgs/{organizationId}', { params: { path: { organizationId } }, body: { inviteLinks: true } })),
    onSuccess: (organization) => queryClient.setQueryData(['organization', organizationId], organization),
  });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/orgs/{organizationId}/link-invites', { params: { path: { organizationId } }, body: { role } })),
    onSuccess: refresh,
  });
  const revoke = useRevokeInvite(organizationId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="links-title">
      <h3 id="links-title">Invite links</h3>
      <p className="hint">Anyone holding a link can join with its role until it expires (30 days). The link is shown once: copy it when you make it.</p>
      {linksOn ? (
        <form className="inline-form" onSubmit={submit}>
          <div className="field-row">
            <label htmlFor="link-role">Role for people who join by link</label>
            <RoleSelect id="link-role" value={role} withGuest onChange={setRole} />
            <button type="submit" disabled={create.isPending}>
              Create invite link
            </button>
          </div>
          {create.data?.url ? <CopyField id="new-invite-link" label="New invite link" value={create.data.url} copyLabel="Copy link" /> : null}
          {create.isError ? <ErrorNotice title="No link was made" message={errorMessage(create.error)} /> : null}
        </form>
      ) : (
        <div className="inline-form">
          <p>Invite links are turned off for this organization.</p>
          <button type="button" className="secondary" disabled={turnOn.isPending} onClick={() => turnOn.mutate()}>
            Turn on invite links
          </button>
          {turnOn.isError ? <ErrorNotice title="Invite links were not turned on" message={errorMessage(turnOn.error)} /> : null}
        </div>
      )}
      {links.isError ? <ErrorNotice title="The invite links could not be loaded" error={links.error} /> : null}
      {links.data?.length ? (
        <InviteTable
          labelledBy="links-title"
          idPrefix="link"
          columns={['Made', 'Role', 'Used']}
          invites={links.data}
          rowName={(link) => new Date(link.createdAt).toLocaleString()}
          cells={(link) => (
            <>
              <td>{roleLabel(link.role)}</td>
              <td>{link.maxUses === null ? `${link.uses} ${link.uses === 1 ? 'time' : 'times'}` : `${link.uses} of ${link.maxUses}`}</td>
            </>
          )}
          revokeLabel="Revoke link"
          revoke={revoke}
        />
      ) : null}
      {links.data?.length === 0 ? <p>No invite links.</p> : null}
      {revoke.isSuccess ? <p role="status">The link was revoked: nobody can join with it any more.</p> : null}
      {revoke.isError ? <ErrorNotice title="The link was not revoked" message={errorMessage(revoke.error)} /> : null}
    </section>
  );
}
