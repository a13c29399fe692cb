import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { ConfirmInline } from './ConfirmInline.js';
import { adminKey, settingsPath, useOrganizationId } from './organization.js';
import { RowAction } from './RowAction.js';

type TeamRole = 'owner' | 'member';

/** One team: its name, its members and their team roles, adding members by address, deleting the team. */
export default function Team() {
  const organizationId = useOrganizationId();
  const teamId = useParams().teamId!;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { organizationId, teamId } } };
  const team = useQuery({ queryKey: adminKey(organizationId, 'teams', teamId), queryFn: () => unwrap(api.GET('/orgs/{organizationId}/teams/{teamId}', path)) });
  const members = useQuery({
    queryKey: adminKey(organizationId, 'teams', teamId, 'members'),
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/teams/{teamId}/members', { params: { path: { organizationId, teamId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'teams') });

  const [title, setTitle] = useState<string>();
  const rename = useMutation({
    mutationFn: (name: string) => unwrap(api.PATCH('/orgs/{organizationId}/teams/{teamId}', { ...path, body: { title: name } })),
    onSuccess: async () => {
      setTitle(undefined);
      await refresh();
    },
  });
  const [email, setEmail] = useState('');
  const changeMembers = useMutation({
    mutationFn: (body: { add?: string[]; remove?: string[]; memberships?: Record<string, { role: TeamRole }> }) => unwrap(api.PUT('/orgs/{organizationId}/teams/{teamId}/members', { ...path, body })),
    onSuccess: async (_answer, body) => {
      if (body.add) setEmail('');
      await refresh();
    },
  });
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/orgs/{organizationId}/teams/{teamId}', path)),
    onSuccess: async () => {
      // Leave the team's page first: its reads, refetched after the change, would ask for a team that is gone.
      await navigate(settingsPath(organizationId, 'teams'));
      // Only the list is read again: the deleted one's own reads (left to expire) would be answered 404.
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'teams'), exact: true });
    },
  });

  if (team.isPending) return <Loading label="Loading the team" />;
  if (team.isError) return <ErrorNotice title="This team could not be opened" error={team.error} />;
  const canChange = team.data.permissions.admin;
  const shownTitle = title ?? team.data.title;

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(shownTitle.trim());
  };
  const submitAdd = (event: FormEvent) => {
    event.preventDefault();
    changeMembers.mutate({ add: [email.trim()] });
  };

  return (
    <section aria-labelledby="team-title">
      <p className="crumbs">
        <Link to={settingsPath(organizationId, 'teams')}>Teams</Link>
      </p>
      <h2 id="team-title">Team “{team.data.title}”</h2>
      {canChange ? (
        <form className="inline-form" onSubmit={submitRename}>
          <div className="field-row">
            <label htmlFor="team-title-input">Team name</label>
            <input id="team-title-input" required maxLength={64} value={shownTitle} onChange={(event) => setTitle(event.target.value)} />
            <button type="submit" disabled={rename.isPending || shownTitle.trim() === '' || shownTitle === team.data.title}>
              Rename team
            </button>
          </div>
          {rename.isSuccess ? <p role="status">Team renamed.</p> : null}
          {rename.isError ? <ErrorNotice title="The team was not renamed" message={errorMessage(rename.error)} /> : null}
        </form>
      ) : null}

      <h3 id="team-members-title">Members of the team</h3>
      {members.isPending ? <Loading label="Loading the team's members" /> : null}
      {members.isError ? <ErrorNotice title="The team's members could not be loaded" error={members.error} /> : null}
      {members.data?.length === 0 ? <p>Nobody is in this team yet.</p> : null}
      {members.data?.length ? (
        <table className="admin-table" aria-labelledby="team-members-title">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" id="team-role-col">
                Team role
              </th>
              {canChange ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {members.data.map(({ organization: member, team: membership }) => {
              const nameId = `team-member-${member.id}`;
              const removeId = `team-member-${member.id}-remove`;
              return (
                <tr key={member.id}>
                  <th scope="row" id={nameId}>
                    {member.user.displayName}
                  </th>
                  <td>
                    {canChange ? (
                      <select aria-labelledby={`team-role-col ${nameId}`} value={membership.role} disabled={changeMembers.isPending} onChange={(event) => changeMembers.mutate({ memberships: { [member.id]: { role: event.target.value as TeamRole } } })}>
                        <option value="member">Member</option>
                        <option value="owner">Owner</option>
                      </select>
                    ) : membership.role === 'owner' ? (
                      'Owner'
                    ) : (
                      'Member'
                    )}
                  </td>
                  {canChange ? (
                    <td>
                      <RowAction id={removeId} rowNameId={nameId} disabled={changeMembers.isPending} onClick={() => changeMembers.mutate({ remove: [member.id] })}>
                        Remove from team
                      </RowAction>
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {canChange ? (
        <form className="inline-form" onSubmit={submitAdd}>
          <div className="field-row">
            <label htmlFor="team-add-email">Email of the member to add</label>
            <input id="team-add-email" type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
            <button type="submit" disabled={changeMembers.isPending || email.trim() === ''}>
              Add to team
            </button>
          </div>
        </form>
      ) : null}
      {changeMembers.isError ? <ErrorNotice title="The team's members were not changed" message={errorMessage(changeMembers.error)} /> : null}

      {canChange ? (
        <div className="danger-zone">
          <h3>Delete the team</h3>
          {confirmingDelete ? (
            <ConfirmInline
              question={`Delete the team “${team.data.title}”? Its members stay in the organization, but lose the access given to the team.`}
              confirmLabel="Delete team"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
              onCancel={() => setConfirmingDelete(false)}
            />
          ) : (
            <button type="button" className="secondary" onClick={() => setConfirmingDelete(true)}>
              Delete this team
            </button>
          )}
          {remove.isError ? <ErrorNotice title="The team was not deleted" message={errorMessage(remove.error)} /> : null}
        </div>
      ) : null}
    </section>
  );
}
