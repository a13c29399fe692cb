import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { contentPermissionsApi, type ContentKind } from './content-permissions-api.js';
import { adminKey, settingsPath, useOrganizationId } from './organization.js';
import { RoleSelect } from './RoleSelect.js';
import { RowAction } from './RowAction.js';
import { roleLabel, type Role } from './roles.js';
import { useTeams } from './Teams.js';

/**
 * Who has access to one space or collection: the people and teams given a role on it (changed or taken back
 * here), a form to give access, and everyone who can see it with the role every request of theirs gets.
 */
export default function ContentPermissions() {
  const organizationId = useOrganizationId();
  const { kind, contentId } = useParams() as { kind: string; contentId: string };
  if (kind !== 's' && kind !== 'c') return <ErrorNotice title="This address names no space or collection" message="Choose one in the list of permissions." />;
  return <ContentPermissionsOf key={`${kind}/${contentId}`} organizationId={organizationId} kind={kind} contentId={contentId} />;
}

function ContentPermissionsOf({ organizationId, kind, contentId }: { organizationId: string; kind: ContentKind; contentId: string }) {
  const queryClient = useQueryClient();
  const calls = useMemo(() => contentPermissionsApi(kind, contentId), [kind, contentId]);
  const key = adminKey(organizationId, 'permissions', kind, contentId);
  const noun = kind === 's' ? 'space' : 'collection';
  const title = useQuery({ queryKey: [...key, 'title'], queryFn: calls.title });
  const users = useQuery({
    queryKey: [...key, 'users'],
    queryFn: calls.users,
    select: (rows): Granted[] => rows.map(({ user, permission }) => ({ id: user.id, name: user.displayName, permission })),
  });
  const teams = useQuery({
    queryKey: [...key, 'teams'],
    queryFn: calls.teams,
    select: (rows): Granted[] => rows.map(({ team, permission }) => ({ id: team.id, name: team.title, permission })),
  });
  const everyone = useInfiniteQuery({
    queryKey: [...key, 'everyone'],
    queryFn: ({ pageParam }) => calls.everyone(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next?.page,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const [said, setSaid] = useState('');
  const change = useMutation({
    mutationFn: async (action: { run: () => Promise<void>; done: string }) => {
      await action.run();
      return action.done;
    },
    onSuccess: async (done) => {
      setSaid(done);
      await refresh();
    },
  });
  const busy = change.isPending;

  if (title.isPending) return <Loading label={`Loading the ${noun}`} />;
  if (title.isError) return <ErrorNotice title={`This ${noun} could not be opened`} error={title.error} />;

  return (
    <section aria-labelledby="content-permissions-title">
      <p className="crumbs">
        <Link to={settingsPath(organizationId, 'permissions')}>Permissions</Link>
      </p>
      <h2 id="content-permissions-title">
        Access to the {noun} “{title.data}”
      </h2>
      <p role="status" className="status-line">
        {said}
      </p>
      {change.isError ? <ErrorNotice title="Nothing was changed" message={errorMessage(change.error)} /> : null}

      <GrantedTable
        kind="user"
        rows={users}
        busy={busy}
        emptyText={`Nobody was given access to this ${noun} in person.`}
        onRole={(user, role) => change.mutate({ run: () => calls.setUserRole(user.id, role), done: `${user.name} is now ${roleLabel(role)} here.` })}
        onRemove={(user) => change.mutate({ run: () => calls.removeUser(user.id), done: `${user.name} no longer has access given here.` })}
      />
      <GrantedTable
        kind="team"
        rows={teams}
        busy={busy}
        emptyText={`No team was given access to this ${noun}.`}
        onRole={(team, role) => change.mutate({ run: () => calls.setTeamRole(team.id, role), done: `The team ${team.name} is now ${roleLabel(role)} here.` })}
        onRemove={(team) => change.mutate({ run: () => calls.removeTeam(team.id), done: `The team ${team.name} no longer has access given here.` })}
      />

      <GrantForm
        organizationId={organizationId}
        noun={noun}
        busy={busy}
        onGrant={(who, role) =>
          change.mutate({
            run: () => calls.grant({ role, ...(who.kind === 'user' ? { users: [who.id] } : { teams: [who.id] }) }),
            done: `${who.name} is now ${roleLabel(role)} here.`,
          })
        }
      />

      <h3 id="everyone-title">Everyone who can see it</h3>
      <p className="hint">Each person&apos;s role here, from their organization role, the access given to them or their teams here and on the collections above.</p>
      {everyone.isPending ? <Loading label="Loading everyone with access" /> : null}
      {everyone.isError ? <ErrorNotice title="The people with access could not be loaded" error={everyone.error} /> : null}
      {everyone.data ? (
        <table className="admin-table" aria-labelledby="everyone-title">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role here</th>
            </tr>
          </thead>
          <tbody>
            {everyone.data.pages
              .flatMap((page) => page.items)
              .map(({ user, permission }) => (
                <tr key={user.id}>
                  <th scope="row">{user.displayName}</th>
                  <td>{roleLabel(permission)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      ) : null}
      {everyone.hasNextPage ? (
        <button type="button" className="secondary" disabled={everyone.isFetchingNextPage} onClick={() => void everyone.fetchNextPage()}>
          Show more people
        </button>
      ) : null}
    </section>
  );
}

/** One person or team given a role on the content, as the tables of given access list them. */
interface Granted {
  id: string;
  name: string;
  permission: Role;
}

const grantedWords = {
  user: { heading: 'People given access', column: 'Person', plural: 'people' },
  team: { heading: 'Teams given access', column: 'Team', plural: 'teams' },
} as const;

/** The people (or the teams) given a role on the content: each role changed or taken back in its row. */
function GrantedTable({ kind, rows, busy, emptyText, onRole, onRemove }: {
  kind: 'user' | 'team';
  rows: { isPending: boolean; isError: boolean; error: unknown; data?: Granted[] };
  busy: boolean;
  emptyText: string;
  onRole: (granted: Granted, role: Role) => void;
  onRemove: (granted: Granted) => void;
}) {
  const words = grantedWords[kind];
  const titleId = `granted-${kind === 'user' ? 'people' : 'teams'}-title`;
  const roleColumnId = `granted-${kind}-role-col`;
  return (
    <>
      <h3 id={titleId}>{words.heading}</h3>
      {rows.isPending ? <Loading label={`Loading the ${words.plural} given access`} /> : null}
      {rows.isError ? <ErrorNotice title={`The ${words.plural} given access could not be loaded`} error={rows.error} /> : null}
      {rows.data?.length === 0 ? <p>{emptyText}</p> : null}
      {rows.data?.length ? (
        <table className="admin-table" aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">{words.column}</th>
              <th scope="col" id={roleColumnId}>
                Role here
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.data.map((granted) => {
              const nameId = `granted-${kind}-${granted.id}`;
              return (
                <tr key={granted.id}>
                  <th scope="row" id={nameId}>
                    {granted.name}
                  </th>
                  <td>
                    <RoleSelect labelledBy={`${roleColumnId} ${nameId}`} value={granted.permission} disabled={busy} onChange={(role) => onRole(granted, role as Role)} />
                  </td>
                  <td>
                    <RowAction id={`${nameId}-remove`} rowNameId={nameId} disabled={busy} onClick={() => onRemove(granted)}>
                      Remove access
                    </RowAction>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

interface Grantee {
  kind: 'user' | 'team';
  id: string;
  name: string;
}

function GrantForm({ organizationId, noun, busy, onGrant }: { organizationId: string; noun: string; busy: boolean; onGrant: (who: Grantee, role: Role) => void }) {
  const members = useQuery({
    queryKey: ['organization', organizationId, 'members'],
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/members', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const teams = useTeams(organizationId);
  const [chosen, setChosen] = useState('');
  const [role, setRole] = useState<Role>('read');
  const grantees: Grantee[] = [
    ...(members.data ?? []).map((member) => ({ kind: 'user' as const, id: member.id, name: member.user.displayName })),
    ...(teams.data ?? []).map((team) => ({ kind: 'team' as const, id: team.id, name: team.title })),
  ];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const who = grantees.find((grantee) => `${grantee.kind}:${grantee.id}` === chosen);
    if (who) onGrant(who, role);
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="grant-title">
      <h3 id="grant-title">Give access</h3>
      <div className="field-row">
        <label htmlFor="grantee">Person or team</label>
        <select id="grantee" required value={chosen} onChange={(event) => setChosen(event.target.value)}>
          <option value="">Choose…</option>
          <optgroup label="People">
            {grantees
              .filter((grantee) => grantee.kind === 'user')
              .map((grantee) => (
                <option key={grantee.id} value={`user:${grantee.id}`}>
                  {grantee.name}
                </option>
              ))}
          </optgroup>
          <optgroup label="Teams">
            {grantees
              .filter((grantee) => grantee.kind === 'team')
              .map((grantee) => (
                <option key={grantee.id} value={`team:${grantee.id}`}>
                  {grantee.name}
                </option>
              ))}
          </optgroup>
        </select>
        <label htmlFor="grant-role">Role</label>
        <RoleSelect id="grant-role" value={role} onChange={(value) => setRole(value as Role)} />
        <button type="submit" disabled={busy || chosen === ''}>
          Give access
        </button>
      </div>
      {members.isError ? <ErrorNotice title="The members could not be loaded" error={members.error} /> : null}
      <p className="hint">The role holds for this {noun}{noun === 'collection' ? ' and everything in it' : ''}; someone whose role is higher elsewhere keeps the higher one.</p>
    </form>
  );
}
