import type { components } from '@quire/api-types';
import type { Db } from '../db/index.js';
import { BadRequestError } from '../errors.js';
import { applicableMergeRules, judgeMergeRules, type MergeVerdict, type OrganizationMergeRules, type SpaceMergeRules } from '../policies/merge-rule-policy.js';
import type { ChangeRequestRow } from '../stores/change-request-store.js';
import { reviewsForRules } from '../stores/change-request-review-store.js';
import { findMembership, findOrganizationById } from '../stores/organization-store.js';
import type { SpaceRow } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';

/*
 * The merge rules' verdict on a change request (policies/merge-rule-policy.ts judges; this gathers the
 * facts): the merge enforces it and the change request's `mergeability` shows it.
 */

type ReviewStatus = components['schemas']['ChangeRequestReviewStatus'];

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function hasDescription(description: string | null): boolean {
  if (description === null) return false;
  const document = parseJson<{ nodes?: unknown[] }>(description, {});
  return Array.isArray(document.nodes) && document.nodes.length > 0;
}

/**
 * The merge rules' verdict on the request for the caller, against the space's current main revision.
 * Read fresh on every call: rules changed on the space or the organization apply at once.
 */
export async function judgeChangeRequest(context: ServiceContext, caller: Caller, space: SpaceRow, changeRequest: ChangeRequestRow, mainRevisionId = space.revision_id): Promise<MergeVerdict> {
  const organization = await findOrganizationById(context.db, space.organization_id);
  const rules = applicableMergeRules(
    parseJson<SpaceMergeRules>(space.merge_rules, { type: 'inherit' }),
    parseJson<OrganizationMergeRules>(organization?.merge_rules ?? '', { type: 'none' }),
  );
  if (rules.length === 0) return { mergeable: true, unmetRules: [] };
  const reviews = await reviewsForRules(context.db, changeRequest.id);
  return judgeMergeRules(rules, {
    callerId: caller.user.id,
    creatorId: changeRequest.created_by,
    subject: changeRequest.subject,
    hasDescription: hasDescription(changeRequest.description),
    upToDate: (changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial) === mainRevisionId,
    reviews: reviews.map((review) => ({
      reviewerId: review.reviewer_id,
      status: review.status as ReviewStatus,
      outdated: review.revision_id !== changeRequest.revision_id,
    })),
  });
}


/** Users named by merge rules (of a space or of the organization) must be active members of the organization. */
export async function checkMergeRuleUsers(db: Db, organizationId: string, rules: SpaceMergeRules | OrganizationMergeRules): Promise<void> {
  if (rules.type !== 'rules') return;
  for (const [ruleIndex, rule] of rules.rules.entries()) {
    if (!('users' in rule)) continue;
    for (const [userIndex, userId] of rule.users.entries()) {
      const membership = await findMembership(db, organizationId, userId);
      if (!membership || membership.disabled !== 0) {
        throw new BadRequestError(`body.mergeRules.rules.${ruleIndex}.users.${userIndex} is not a member of the organization`);
      }
    }
  }
}
