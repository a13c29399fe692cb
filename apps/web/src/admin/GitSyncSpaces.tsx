import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { useOrganizationContent } from '../screens/OrganizationTree.js';
import { settingsPath, useOrganizationId } from './organization.js';
import { ContentTree } from './Permissions.js';

/** The spaces (in their collections), each opening its Git sync. */
export default function GitSyncSpaces() {
  const organizationId = useOrganizationId();
  const content = useOrganizationContent(organizationId);
  return (
    <section aria-labelledby="git-title">
      <h2 id="git-title">Git sync</h2>
      <p className="hint">Choose a space to import its content from a branch of a Git repository, or to export it to one.</p>
      {content.isPending ? <Loading label="Loading the spaces" /> : null}
      {content.isError ? <ErrorNotice title="The spaces could not be loaded" error={content.error} /> : null}
      {content.data?.spaces.length === 0 ? <p>No spaces yet.</p> : null}
      {content.data ? (
        <ContentTree hrefOf={(kind, id) => (kind === 's' ? settingsPath(organizationId, `git/${encodeURIComponent(id)}`) : undefined)} collections={content.data.collections} spaces={content.data.spaces} />
      ) : null}
    </section>
  );
}
