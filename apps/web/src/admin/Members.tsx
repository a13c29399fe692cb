import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { useDeferredValue, useRef, useState } from 'react';
import { api, errorMessage } from '../api/client.js';
import { useSession } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { ConfirmInline } from './ConfirmInline.js';
import { adminKey, useOrganization, useOrganizationId } from './organization.js';
import { RoleSelect } from './RoleSelect.js';
import { roleLabel, type RoleOrGuest } from './roles.js';

type Member = components['schemas']['Member'];

/** A page of members at a time: large organizations are not loaded whole. */
export const MEMBERS_PAGE_SIZE = 20;

/** The members of the organization, newest first, found by name or address; admins change roles and remove. */
export default function Members() {
  const organizationId = useOrganizationId();
  const organization = useOrganization(organizationId);
  const isAdmin = organization.data?.permissions.admin ?? false;
  const me = useSession().data?.user.id;
  const [search, setSearch] = useState('');
  const wanted = useDeferredValue(search.trim());
  const [removed, setRemoved] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);

  const members = useInfiniteQuery({
    queryKey: adminKey(organizationId, 'members', wanted),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/orgs/{organizationId}/members', {
          params: { path: { organizationId }, query: { limit: MEMBERS_PAGE_SIZE, ...(pageParam ? { page: pageParam } : {}), ...(wanted ? { search: wanted } : {}) } },
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next?.page,
  });
  const shown = members.data?.pages.flatMap((page) => page.items) ?? [];
  const total = members.data?.pages[0]?.count;

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title" ref={heading} tabIndex={-1}>
        Members
      </h2>
      <div className="field-row">
        <label htmlFor="member-search">Find a member</label>
        <input id="member-search" type="search" value={search} placeholder="Name or email" onChange={(event) => setSearch(event.target.value)} />
      </div>
      <p role="status" className="status-line">
        {removed ? `${removed} was removed from the organization. ` : ''}
        {total !== undefined ? `${total} ${total === 1 ? 'member' : 'members'}${wanted ? ` matching “${wanted}”` : ''}.` : ''}
      </p>
      {members.isPending ? <Loading label="Loading the members" /> : null}
      {members.isError ? <ErrorNotice title="The members could not be loaded" error={members.error} /> : null}
      {shown.length > 0 ? (
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col" id="member-name-col">
                Name
              </th>
              <th scope="col">Email</th>
              <th scope="col" id="member-role-col">
                Role
              </th>
              <th scope="col">Joined</th>
              {isAdmin ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {shown.map((member) => (
              <MemberRow
                key={member.id}
                member={member}
                isMe={member.id === me}
                isAdmin={isAdmin}
                organizationId={organizationId}
                onRemoved={(name) => {
                  setRemoved(name);
                  heading.current?.focus();
                }}
              />
            ))}
          </tbody>
        </table>
      ) : null}
      {members.isSuccess && shown.length === 0 ? <p>{wanted ? 'No member matches this search.' : 'No members.'}</p> : null}
      {members.hasNextPage ? (
        <button type="button" className="secondary" disabled={members.isFetchingNextPage} onClick={() => void members.fetchNextPage()}>
          Show more members
        </button>
      ) : null}
    </section>
  );
}

function MemberRow({ member, isMe, isAdmin, organizationId, onRemoved }: { member: Member; isMe: boolean; isAdmin: boolean; organizationId: string; onRemoved: (name: string) => void }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const removeButton = useRef<HTMLButtonElement>(null);
  const path = { params: { path: { organizationId, userId: member.id } } };
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'members') });
    await queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'members'] });
  };
  const changeRole = useMutation({
    mutationFn: (role: RoleOrGuest) => unwrap(api.PATCH('/orgs/{organizationId}/members/{userId}', { ...path, body: { role } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/orgs/{organizationId}/members/{userId}', path)),
    onSuccess: async () => {
      onRemoved(member.user.displayName);
      await refresh();
    },
  });
  const nameId = `member-${member.id}-name`;
  const removeId = `member-${member.id}-remove`;
  return (
    <tr>
      <th scope="row" id={nameId}>
        {member.user.displayName}
        {isMe ? <span className="badge">you</span> : null}
      </th>
      <td>{member.user.email ?? ''}</td>
      <td>
        {isAdmin ? <RoleSelect labelledBy={`member-role-col ${nameId}`} value={changeRole.isPending ? changeRole.variables : member.role} withGuest disabled={changeRole.isPending} onChange={(role) => changeRole.mutate(role)} /> : roleLabel(member.role)}
        {changeRole.isSuccess ? <span className="saved">Saved</span> : null}
        {changeRole.isError ? <ErrorNotice title="The role was not changed" message={errorMessage(changeRole.error)} /> : null}
      </td>
      <td>{new Date(member.joinedAt).toLocaleDateString()}</td>
      {isAdmin ? (
        <td>
          {confirming ? (
            <ConfirmInline
              question={`Remove ${member.user.displayName} from the organization? They lose their teams and the access given to them.`}
              confirmLabel="Remove member"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
              onCancel={() => {
                setConfirming(false);
                remove.reset();
                requestAnimationFrame(() => removeButton.current?.focus());
              }}
            />
          ) : (
            <button ref={removeButton} id={removeId} type="button" className="secondary" aria-labelledby={`${removeId} ${nameId}`} onClick={() => setConfirming(true)}>
              Remove
            </button>
          )}
          {remove.isError ? <ErrorNotice title="The member was not removed" message={errorMessage(remove.error)} /> : null}
        </td>
      ) : null}
    </tr>
  );
}
