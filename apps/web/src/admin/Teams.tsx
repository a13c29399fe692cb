import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { adminKey, settingsPath, useOrganization, useOrganizationId } from './organization.js';

export function useTeams(organizationId: string) {
  return useQuery({
    queryKey: adminKey(organizationId, 'teams'),
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/teams', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
}

/** The organization's teams, each opening its own page; admins create new ones here. */
export default function Teams() {
  const organizationId = useOrganizationId();
  const isAdmin = useOrganization(organizationId).data?.permissions.admin ?? false;
  const queryClient = useQueryClient();
  const teams = useTeams(organizationId);
  const [title, setTitle] = useState('');
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.PUT('/orgs/{organizationId}/teams', { params: { path: { organizationId } }, body: { title: name } })),
    onSuccess: async () => {
      setTitle('');
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'teams') });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(title.trim());
  };
  return (
    <section aria-labelledby="teams-title">
      <h2 id="teams-title">Teams</h2>
      {teams.isPending ? <Loading label="Loading the teams" /> : null}
      {teams.isError ? <ErrorNotice title="The teams could not be loaded" error={teams.error} /> : null}
      {teams.data?.length === 0 ? <p>No teams yet. A team lets you give several people access to a space or a collection at once.</p> : null}
      {teams.data?.length ? (
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Members</th>
              <th scope="col">Spaces</th>
            </tr>
          </thead>
          <tbody>
            {teams.data.map((team) => (
              <tr key={team.id}>
                <th scope="row">
                  <Link to={settingsPath(organizationId, `teams/${encodeURIComponent(team.id)}`)}>{team.title}</Link>
                </th>
                <td>{team.members}</td>
                <td>{team.spaces}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {isAdmin ? (
        <form className="inline-form" onSubmit={submit}>
          <h3>New team</h3>
          <div className="field-row">
            <label htmlFor="new-team-title">Team name</label>
            <input id="new-team-title" required maxLength={64} value={title} onChange={(event) => setTitle(event.target.value)} />
            <button type="submit" disabled={create.isPending || title.trim() === ''}>
              Create team
            </button>
          </div>
          {create.isSuccess ? <p role="status">Team “{create.data.title}” created.</p> : null}
          {create.isError ? <ErrorNotice title="The team was not created" message={errorMessage(create.error)} /> : null}
        </form>
      ) : null}
    </section>
  );
}
