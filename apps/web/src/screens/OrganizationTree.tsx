import { useQuery } from '@tanstack/react-query';
import type { components } from '@quire/api-types';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import { appPath } from '../api/queries.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';

type Space = components['schemas']['Space'];
type Collection = components['schemas']['Collection'];

export function useOrganizationContent(organizationId: string) {
  return useQuery({
    queryKey: ['organization', organizationId, 'tree'],
    queryFn: async () => {
      const [collections, spaces] = await Promise.all([
        all((page) => api.GET('/orgs/{organizationId}/collections', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
        all((page) => api.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
      ]);
      return { collections, spaces };
    },
  });
}

/** Collections nest collections and spaces; what has no parent (or a parent not visible) is at the top. */
function Branch({ parent, collections, spaces }: { parent: string | undefined; collections: Collection[]; spaces: Space[] }) {
  const known = new Set(collections.map((collection) => collection.id));
  const atThisLevel = <T extends { parent?: string | null | undefined }>(item: T) =>
    parent === undefined ? !item.parent || !known.has(item.parent) : item.parent === parent;
  const childCollections = collections.filter(atThisLevel);
  const childSpaces = spaces.filter(atThisLevel);
  if (childCollections.length === 0 && childSpaces.length === 0) return null;
  return (
    <ul className="tree">
      {childCollections.map((collection) => (
        <li key={collection.id}>
          <Link to={appPath(collection.urls.app)} className="tree-collection">
            {collection.title}
          </Link>
          <Branch parent={collection.id} collections={collections} spaces={spaces} />
        </li>
      ))}
      {childSpaces.map((space) => (
        <li key={space.id}>
          <Link to={appPath(space.urls.app)} className="tree-space">
            {space.emoji ? `${space.emoji} ` : ''}
            {space.title || 'Untitled space'}
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function OrganizationTree({ organizationId, under }: { organizationId: string; under?: string }) {
  const content = useOrganizationContent(organizationId);
  if (content.isPending) return <Loading label="Loading collections and spaces" />;
  if (content.isError) return <ErrorNotice title="The collections and spaces could not be loaded" error={content.error} />;
  const { collections, spaces } = content.data;
  if (collections.length === 0 && spaces.length === 0) return <p>No collections or spaces yet.</p>;
  return <Branch parent={under} collections={collections} spaces={spaces} />;
}
