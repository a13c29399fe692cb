import type { components } from '@quire/api-types';
import { parseDefaultLevel } from '../../policies/roles.js';
import { spacePermissions, spaceStateOf } from '../../policies/space-policy.js';
import type { SpaceWithRole } from '../../services/space-service.js';
import type { SpaceGitSyncCopy } from '../../stores/git-sync-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';
import { presentGitSyncState } from './git-sync-presenter.js';

export type ApiSpace = components['schemas']['Space'];

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * `urls.published` and `urls.public` exist only for a space published on a docs site; no site publishes a
 * space yet, so they are left out (as is `icon`, which spaces do not have).
 */
export function presentSpace(context: PresentContext, { space: row, role }: SpaceWithRole): ApiSpace {
  const id = encodeURIComponent(row.id);
  const gitSync = parseJson<SpaceGitSyncCopy | null>(row.git_sync, null);
  const visitorAuth = parseJson<ApiSpace['visitorAuth'] | null>(row.visitor_auth, null);
  return {
    object: 'space',
    id: row.id,
    title: row.title,
    emoji: row.emoji,
    visibility: row.visibility as ApiSpace['visibility'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deleted_at ? { deletedAt: row.deleted_at } : {}),
    editMode: row.edit_mode as NonNullable<ApiSpace['editMode']>,
    mergeRules: parseJson<ApiSpace['mergeRules']>(row.merge_rules, { type: 'inherit' }),
    urls: {
      location: apiUrl(context, `/spaces/${id}`),
      app: appUrl(context, `/o/${encodeURIComponent(row.organization_id)}/s/${id}`),
    },
    organization: row.organization_id,
    ...(row.collection_id ? { parent: row.collection_id } : {}),
    ...(row.language ? { language: row.language as NonNullable<ApiSpace['language']> } : {}),
    ...(gitSync ? { gitSync: presentGitSyncState(gitSync.state, gitSync.operation ?? undefined) } : {}),
    ...(visitorAuth ? { visitorAuth } : {}),
    revision: row.revision_id,
    defaultLevel: parseDefaultLevel(row.default_level),
    comments: row.comments_count,
    changeRequests: row.change_requests_count,
    changeRequestsOpen: row.change_requests_open,
    changeRequestsDraft: row.change_requests_draft,
    permissions: spacePermissions(role, spaceStateOf(row)),
  };
}
