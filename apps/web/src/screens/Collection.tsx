import { useQuery } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import { Link, useParams } from 'react-router';
import { api } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { OrganizationTree } from './OrganizationTree.js';

export default function Collection() {
  const { organizationId, collectionId } = useParams() as { organizationId: string; collectionId: string };
  const collection = useQuery({
    queryKey: ['collection', collectionId],
    queryFn: () => unwrap(api.GET('/collections/{collectionId}', { params: { path: { collectionId } } })),
  });
  if (collection.isPending) return <Loading label="Loading the collection" />;
  if (collection.isError) return <ErrorNotice title="This collection could not be opened" error={collection.error} />;
  return (
    <section className="screen">
      <p className="crumbs">
        <Link to={`/o/${encodeURIComponent(organizationId)}`}>Organization</Link>
      </p>
      <h1>{collection.data.title}</h1>
      {collection.data.description ? <p>{collection.data.description}</p> : null}
      <OrganizationTree organizationId={organizationId} under={collectionId} />
    </section>
  );
}
