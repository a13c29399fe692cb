import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { isSourceReady, OpenApiSourceFields, sourceBody, type SourceChoice } from './OpenApiSourceFields.js';
import { adminKey, useOrganization, useOrganizationId } from './organization.js';
import { isProcessing, PROCESSING_POLL_MS, processingLabel } from './processing.js';

/** The organization's OpenAPI specifications, each opening its own screen; a new one from a file or a URL. */
export default function OpenApiSpecs() {
  const organizationId = useOrganizationId();
  const canCreate = useOrganization(organizationId).data?.permissions.createOpenAPISpec ?? false;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const specs = useQuery({
    queryKey: adminKey(organizationId, 'openapi'),
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
    refetchInterval: (query) => (query.state.data?.some(isProcessing) ? PROCESSING_POLL_MS : false),
  });
  const [slug, setSlug] = useState('');
  const [source, setSource] = useState<SourceChoice>({ kind: 'file', file: undefined });
  const create = useMutation({
    mutationFn: async () => unwrap(api.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: { slug: slug.trim(), source: await sourceBody(source) } })),
    onSuccess: async (spec) => {
      await queryClient.invalidateQueries({ queryKey: adminKey(organizationId, 'openapi') });
      await navigate(appPath(spec.urls.app));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="openapi-title">
      <h2 id="openapi-title">OpenAPI specifications</h2>
      {specs.isPending ? <Loading label="Loading the specifications" /> : null}
      {specs.isError ? <ErrorNotice title="The specifications could not be loaded" error={specs.error} /> : null}
      {specs.data?.length === 0 ? <p>No OpenAPI specifications yet. Add one to reference its operations in your docs.</p> : null}
      {specs.data?.length ? (
        <table className="admin-table" aria-labelledby="openapi-title">
          <thead>
            <tr>
              <th scope="col">Specification</th>
              <th scope="col">Processing</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {specs.data.map((spec) => (
              <tr key={spec.id}>
                <th scope="row">
                  <Link to={appPath(spec.urls.app)}>{spec.slug}</Link>
                </th>
                <td>{processingLabel(spec)}</td>
                <td>{new Date(spec.updatedAt).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {canCreate ? (
        <form className="inline-form" onSubmit={submit} aria-labelledby="new-spec-title">
          <h3 id="new-spec-title">New specification</h3>
          <div className="field-row">
            <label htmlFor="new-spec-slug">Slug</label>
            <input id="new-spec-slug" required maxLength={100} pattern="[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*" aria-describedby="new-spec-slug-hint" value={slug} onChange={(event) => setSlug(event.target.value)} />
          </div>
          <p id="new-spec-slug-hint" className="hint">
            Its name in addresses: letters and digits, in groups joined by single hyphens (for example payments-api).
          </p>
          <OpenApiSourceFields idPrefix="new-spec" onChange={setSource} />
          <button type="submit" disabled={create.isPending || slug.trim() === '' || !isSourceReady(source)}>
            Add specification
          </button>
          {create.isError ? <ErrorNotice title="The specification was not added" message={errorMessage(create.error)} /> : null}
        </form>
      ) : null}
    </section>
  );
}
