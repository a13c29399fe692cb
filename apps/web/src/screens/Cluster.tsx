import { useMutation, useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { useOrganizationContent } from './OrganizationTree.js';

/** A cluster of issues from support conversations: what it is about, its figures, and a change request opened from it. */
export default function Cluster() {
  const { organizationId, clusterId } = useParams() as { organizationId: string; clusterId: string };
  const navigate = useNavigate();
  const cluster = useQuery({
    queryKey: ['organization', organizationId, 'cluster', clusterId],
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}/conversations-clusters/{clusterId}', { params: { path: { organizationId, clusterId } } })),
  });
  const content = useOrganizationContent(organizationId);
  const editable = content.data?.spaces.filter((space) => space.permissions.edit) ?? [];
  const [spaceId, setSpaceId] = useState('');
  const [subject, setSubject] = useState<string>();
  const open = useMutation({
    mutationFn: (body: { spaceId: string; subject: string }) =>
      unwrap(api.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: body.spaceId } }, body: { subject: body.subject, conversationsIssuesCluster: clusterId } })),
    onSuccess: async (changeRequest) => navigate(appPath(changeRequest.urls.app)),
  });

  if (cluster.isPending) return <Loading label="Loading the cluster" />;
  if (cluster.isError) return <ErrorNotice title="This cluster of conversations could not be opened" error={cluster.error} />;
  const { data } = cluster;
  const shownSubject = subject ?? `Address: ${data.label}`.slice(0, 100);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    open.mutate({ spaceId, subject: shownSubject.trim() });
  };
  return (
    <section className="screen">
      <p className="crumbs">
        <Link to={`/o/${encodeURIComponent(organizationId)}/settings/conversations`}>Conversations</Link>
      </p>
      <h1>{data.label}</h1>
      {data.summary ? <p>{data.summary}</p> : null}
      <dl className="facts">
        <dt>Issues</dt>
        <dd>{data.stats.issues}</dd>
        <dt>Conversations</dt>
        <dd>{data.stats.conversations}</dd>
        <dt>Change requests</dt>
        <dd>
          {data.stats.tasksTotal} ({data.stats.tasksBacklog} drafts, {data.stats.tasksStarted} open, {data.stats.tasksCompleted} merged)
        </dd>
      </dl>
      <form className="inline-form" onSubmit={submit} aria-labelledby="cluster-cr-title">
        <h2 id="cluster-cr-title">Open a change request</h2>
        <p className="hint">It counts among this cluster&apos;s change requests until it is merged or archived.</p>
        <div className="field-row">
          <label htmlFor="cluster-cr-space">Space</label>
          <select id="cluster-cr-space" required value={spaceId} onChange={(event) => setSpaceId(event.target.value)}>
            <option value="">Choose…</option>
            {editable.map((space) => (
              <option key={space.id} value={space.id}>
                {space.title || 'Untitled space'}
              </option>
            ))}
          </select>
        </div>
        <div className="field-row">
          <label htmlFor="cluster-cr-subject">Subject</label>
          <input id="cluster-cr-subject" className="wide" required maxLength={100} value={shownSubject} onChange={(event) => setSubject(event.target.value)} />
        </div>
        <button type="submit" disabled={open.isPending || spaceId === '' || shownSubject.trim() === ''}>
          Open change request
        </button>
        {content.isError ? <ErrorNotice title="The spaces could not be loaded" error={content.error} /> : null}
        {content.isSuccess && editable.length === 0 ? <p>You cannot edit any space of this organization.</p> : null}
        {open.isError ? <ErrorNotice title="No change request was opened" message={errorMessage(open.error)} /> : null}
      </form>
    </section>
  );
}
