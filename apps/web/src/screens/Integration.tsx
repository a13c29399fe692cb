import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { useParams } from 'react-router';
import { api } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';

export default function Integration() {
  const { integrationName } = useParams() as { integrationName: string };
  const integration = useQuery({
    queryKey: ['integration', integrationName],
    queryFn: () => unwrap(api.GET('/integrations/{integrationName}', { params: { path: { integrationName } } })),
  });
  if (integration.isPending) return <Loading label="Loading the integration" />;
  if (integration.isError) return <ErrorNotice title="This integration could not be opened" error={integration.error} />;
  const { data } = integration;
  return (
    <section className="screen">
      <h1>{data.title}</h1>
      <p>{data.description}</p>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{data.name}</dd>
        <dt>Version</dt>
        <dd>{data.version}</dd>
        <dt>Visibility</dt>
        <dd>{data.visibility}</dd>
      </dl>
    </section>
  );
}
