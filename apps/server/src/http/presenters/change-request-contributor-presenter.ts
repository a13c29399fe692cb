import type { components } from '@quire/api-types';
import { canSeeMemberEmail } from '../../policies/member-policy.js';
import type { ContributorViewer } from '../../services/change-request-contributor-service.js';
import type { ContributionRecord } from '../../stores/change-request-contributor-store.js';
import type { PresentContext } from './context.js';
import { presentUser } from './user-presenter.js';

export type ApiChangeRequestContributor = components['schemas']['ChangeRequestContributor'];

export function presentChangeRequestContributor(context: PresentContext, viewer: ContributorViewer, record: ContributionRecord): ApiChangeRequestContributor {
  return {
    actionType: record.kind,
    count: record.count,
    updatedAt: record.lastAt,
    user: presentUser(context, record.user, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, record.user.id) }),
  };
}
