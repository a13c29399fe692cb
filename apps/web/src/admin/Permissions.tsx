import type { components } from '@quire/api-types';
import { Link } from 'react-router';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { useOrganizationContent } from '../screens/OrganizationTree.js';
import { settingsPath, useOrganizationId } from './organization.js';

type Space = components['schemas']['Space'];
type Collection = components['schemas']['Collection'];

/** The organization's collections and spaces as a tree, each opening who has access to it. */
export default function Permissions() {
  const organizationId = useOrganizationId();
  const content = useOrganizationContent(organizationId);
  return (
    <section aria-labelledby="permissions-title">
      <h2 id="permissions-title">Permissions</h2>
      <p className="hint">Choose a collection or a space to see who has access to it, and to give or take access. Access given on a collection holds for everything in it.</p>
      {content.isPending ? <Loading label="Loading collections and spaces" /> : null}
      {content.isError ? <ErrorNotice title="The collections and spaces could not be loaded" error={content.error} /> : null}
      {content.data ? (
        content.data.collections.length + content.data.spaces.length === 0 ? (
          <p>No collections or spaces yet.</p>
        ) : (
          <ContentTree hrefOf={(kind, id) => settingsPath(organizationId, `permissions/${kind}/${encodeURIComponent(id)}`)} collections={content.data.collections} spaces={content.data.spaces} />
        )
      ) : null}
    </section>
  );
}

/** Where a collection (`c`) or a space (`s`) of the tree leads; a collection without one is shown as a label. */
export type HrefOf = (kind: 'c' | 's', id: string) => string | undefined;

/** Collections nest collections and spaces; what has no parent (or a parent not visible) is at the top. */
export function ContentTree({ hrefOf, collections, spaces, parent }: { hrefOf: HrefOf; collections: Collection[]; spaces: Space[]; parent?: string }) {
  const known = new Set(collections.map((collection) => collection.id));
  const atThisLevel = (item: { parent?: string | null | undefined }) => (parent === undefined ? !item.parent || !known.has(item.parent) : item.parent === parent);
  const childCollections = collections.filter(atThisLevel);
  const childSpaces = spaces.filter(atThisLevel);
  if (childCollections.length === 0 && childSpaces.length === 0) return null;
  return (
    <ul className="tree">
      {childCollections.map((collection) => {
        const href = hrefOf('c', collection.id);
        return (
          <li key={collection.id}>
            {href ? (
              <Link to={href} className="tree-collection">
                {collection.title}
              </Link>
            ) : (
              <span className="tree-collection">{collection.title}</span>
            )}
            <ContentTree hrefOf={hrefOf} parent={collection.id} collections={collections} spaces={spaces} />
          </li>
        );
      })}
      {childSpaces.map((space) => (
        <li key={space.id}>
          <Link to={hrefOf('s', space.id)!}>
            {space.emoji ? `${space.emoji} ` : ''}
            {space.title || 'Untitled space'}
          </Link>
        </li>
      ))}
    </ul>
  );
}
