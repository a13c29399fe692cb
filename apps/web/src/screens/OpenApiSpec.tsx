import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { ConfirmInline } from '../admin/ConfirmInline.js';
import { isSourceReady, OpenApiSourceFields, sourceBody, type SourceChoice } from '../admin/OpenApiSourceFields.js';
import { isProcessing, PROCESSING_POLL_MS, processingAdvice, processingLabel } from '../admin/processing.js';

/**
 * An OpenAPI specification (its `urls.app`): where its processing stands, asked again while it runs; the
 * problems of the last processing with what to do; a new version uploaded from a file or a URL; its versions.
 */
export default function OpenApiSpec() {
  const { organizationId, specSlug } = useParams() as { organizationId: string; specSlug: string };
  const queryClient = useQueryClient();
  const key = ['organization', organizationId, 'openapi', specSlug];
  const path = { params: { path: { organizationId, specSlug } } };
  const spec = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/orgs/{organizationId}/openapi/{specSlug}', path)),
    refetchInterval: (query) => (isProcessing(query.state.data) ? PROCESSING_POLL_MS : false),
  });
  const lastVersion = spec.data?.lastVersion;
  const versions = useQuery({
    queryKey: [...key, 'versions', lastVersion],
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { path: { organizationId, specSlug }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const [source, setSource] = useState<SourceChoice>({ kind: 'file', file: undefined });
  const upload = useMutation({
    mutationFn: async () => unwrap(api.PUT('/orgs/{organizationId}/openapi/{specSlug}', { ...path, body: { source: await sourceBody(source) } })),
    onSuccess: (answer) => {
      queryClient.setQueryData(key, answer);
      void queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'admin', 'openapi'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate();
  };
  const navigate = useNavigate();
  const visibility = useMutation({
    mutationFn: (next: 'private' | 'public') => unwrap(api.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { ...path, body: { visibility: next } })),
    onSuccess: (answer) => queryClient.setQueryData(key, answer),
  });
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/orgs/{organizationId}/openapi/{specSlug}', path)),
    onSuccess: async () => {
      await navigate(`/o/${encodeURIComponent(organizationId)}/settings/openapi`);
      await queryClient.invalidateQueries({ queryKey: ['organization', organizationId, 'admin', 'openapi'], exact: true });
    },
  });

  if (spec.isPending) return <Loading label="Loading the OpenAPI specification" />;
  if (spec.isError) return <ErrorNotice title="This OpenAPI specification could not be opened" error={spec.error} />;
  const { data } = spec;
  const advice = processingAdvice(data);
  return (
    <section className="screen">
      <p className="crumbs">
        <Link to={`/o/${encodeURIComponent(organizationId)}/settings/openapi`}>OpenAPI specifications</Link>
      </p>
      <h1>OpenAPI specification “{data.slug}”</h1>
      <dl className="facts">
        <dt>Processing</dt>
        <dd>
          <span role="status">{processingLabel(data)}</span>
        </dd>
        {data.sourceURL ? (
          <>
            <dt>Source</dt>
            <dd>{data.sourceURL}</dd>
          </>
        ) : null}
        {data.lastProcessedAt ? (
          <>
            <dt>Last processed</dt>
            <dd>{new Date(data.lastProcessedAt).toLocaleString()}</dd>
          </>
        ) : null}
      </dl>
      {advice ? (
        <div className="error" role="alert">
          <p className="error-title">The last upload was not processed: the latest version is unchanged.</p>
          <p>{advice}</p>
        </div>
      ) : null}
      {data.lastProcessErrorCode && data.lastProcessedErrors?.length ? (
        <>
          <h2>Processing errors</h2>
          <ul className="list">
            {data.lastProcessedErrors.map((error, index) => (
              <li key={index}>
                {error.message}
                {error.code ? <span className="badge">{error.code}</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      {data.permissions.edit ? (
        <form className="inline-form" onSubmit={submit} aria-labelledby="upload-title">
          <h2 id="upload-title">Upload a new version</h2>
          <OpenApiSourceFields idPrefix="upload" onChange={setSource} />
          <button type="submit" disabled={upload.isPending || !isSourceReady(source)}>
            Upload
          </button>
          {upload.isSuccess ? <p>Uploaded: Quire processes it now, and adds a version when it succeeds.</p> : null}
          {upload.isError ? <ErrorNotice title="Nothing was uploaded" message={errorMessage(upload.error)} /> : null}
        </form>
      ) : null}

      {data.permissions.edit ? (
        <div className="inline-form">
          <div className="field-row">
            <label htmlFor="spec-visibility">Visibility</label>
            <select id="spec-visibility" value={data.visibility ?? 'private'} disabled={visibility.isPending} onChange={(event) => visibility.mutate(event.target.value as 'private' | 'public')}>
              <option value="private">Private: members of the organization only</option>
              <option value="public">Public: anyone with its link</option>
            </select>
          </div>
          {data.urls.published ? (
            <p>
              Public link: <a href={data.urls.published}>{data.urls.published}</a>
            </p>
          ) : null}
          {visibility.isError ? <ErrorNotice title="The visibility was not changed" message={errorMessage(visibility.error)} /> : null}
        </div>
      ) : null}

      <h2 id="versions-title">Versions</h2>
      {versions.isError ? <ErrorNotice title="The versions could not be loaded" error={versions.error} /> : null}
      {versions.data?.length === 0 ? <p>No version yet: a version is made each time a source is processed without errors.</p> : null}
      {versions.data?.length ? (
        <ol className="list versions" aria-labelledby="versions-title">
          {versions.data.map((version) => (
            <li key={version.id}>
              <a href={version.url}>{new Date(version.createdAt).toLocaleString()}</a>
              {version.id === data.lastVersion ? <span className="badge">Latest</span> : null}
            </li>
          ))}
        </ol>
      ) : null}
      {data.permissions.edit ? (
        <div className="danger-zone">
          <h2>Delete the specification</h2>
          {confirmingDelete ? (
            <ConfirmInline
              question={`Delete “${data.slug}” and all its versions? Pages that reference its operations will show them as missing.`}
              confirmLabel="Delete specification"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
              onCancel={() => setConfirmingDelete(false)}
            />
          ) : (
            <button type="button" className="secondary" onClick={() => setConfirmingDelete(true)}>
              Delete this specification
            </button>
          )}
          {remove.isError ? <ErrorNotice title="The specification was not deleted" message={errorMessage(remove.error)} /> : null}
        </div>
      ) : null}
    </section>
  );
}
