import type { components } from '@quire/api-types';

/*
 * Merge rules: which change requests may be merged, by whom. The one place the rule kinds are judged; the
 * merge refuses exactly what `judgeMergeRules` reports as unmet, and the change request's `mergeability`
 * is the same verdict, so a client never has to guess.
 */

export type MergeRule = components['schemas']['MergeRule'];
export type SpaceMergeRules = components['schemas']['MergeRules'];
export type OrganizationMergeRules = components['schemas']['Organization']['mergeRules'];

/** The rules that apply to a space: its own, or the organization's when it inherits; none for `none`. */
export function applicableMergeRules(space: SpaceMergeRules, organization: OrganizationMergeRules): MergeRule[] {
  const effective = space.type === 'inherit' ? organization : space;
  return effective.type === 'rules' ? effective.rules : [];
}

export interface ReviewFact {
  reviewerId: string;
  status: 'approved' | 'changes-requested';
  /** Given on an earlier revision of the request than its current one: listed, never counted. */
  outdated: boolean;
}

/** What the rules look at. */
export interface MergeFacts {
  callerId: string;
  creatorId: string;
  subject: string;
  hasDescription: boolean;
  /** The request already contains the space's current main content. */
  upToDate: boolean;
  /** Every review of the request, oldest first. */
  reviews: readonly ReviewFact[];
}

export interface UnmetRule {
  rule: string;
  message: string;
}

export interface MergeVerdict {
  mergeable: boolean;
  unmetRules: UnmetRule[];
}

/** Each reviewer's latest review, when it was given on the current revision (a newer review replaces an older one). */
function currentReviews(reviews: readonly ReviewFact[]): Map<string, ReviewFact['status']> {
  const latest = new Map<string, ReviewFact>();
  for (const review of reviews) latest.set(review.reviewerId, review);
  const current = new Map<string, ReviewFact['status']>();
  for (const [reviewer, review] of latest) if (!review.outdated) current.set(reviewer, review.status);
  return current;
}

function unmetReason(rule: MergeRule, facts: MergeFacts, current: Map<string, ReviewFact['status']>): string | undefined {
  switch (rule.rule) {
    case 'require_specific_reviewers': {
      const missing = rule.users.filter((user) => current.get(user) !== 'approved');
      return missing.length === 0 ? undefined : `Needs an approval on the current revision from each of: ${missing.join(', ')}`;
    }
    case 'require_one_of_specific_reviewers':
      return rule.users.some((user) => current.get(user) === 'approved') ? undefined : `Needs an approval on the current revision from one of: ${rule.users.join(', ')}`;
    case 'allow_bypass':
      return undefined;
    case 'require_at_least_one_review':
      return [...current.keys()].some((reviewer) => reviewer !== facts.creatorId) ? undefined : 'Needs at least one review on the current revision';
    case 'require_at_least_one_approved_review':
      return [...current.values()].includes('approved') ? undefined : 'Needs at least one approving review on the current revision';
    case 'require_all_reviews_approved': {
      const asking = [...current].filter(([, status]) => status === 'changes-requested').map(([reviewer]) => reviewer);
      return asking.length === 0 ? undefined : `Changes are requested by: ${asking.join(', ')}`;
    }
    case 'require_agent_review':
      // Quire has no review agents: the rule can be stored (the public API has it) but never passes.
      return 'Needs a review by an agent, and this installation has no review agent';
    case 'require_up_to_date_change_request':
      return facts.upToDate ? undefined : 'The change request must first be updated with the latest main content';
    case 'require_change_request_subject':
      return facts.subject.trim() !== '' ? undefined : 'The change request needs a subject';
    case 'require_change_request_description':
      return facts.hasDescription ? undefined : 'The change request needs a description';
    case 'require_author_to_merge':
      return facts.callerId === facts.creatorId ? undefined : 'Only the author of the change request may merge it';
    case 'custom':
      // Expressions are not evaluated by Quire; refusing is the safe reading of a condition it cannot check.
      return `The custom rule "${rule.expression}" cannot be evaluated by this installation`;
  }
}

/** Every unmet rule, and whether the caller may merge anyway (a user listed by `allow_bypass`). */
export function judgeMergeRules(rules: readonly MergeRule[], facts: MergeFacts): MergeVerdict {
  const current = currentReviews(facts.reviews);
  const unmetRules: UnmetRule[] = [];
  for (const rule of rules) {
    const message = unmetReason(rule, facts, current);
    if (message !== undefined) unmetRules.push({ rule: rule.rule, message });
  }
  const bypass = rules.some((rule) => rule.rule === 'allow_bypass' && rule.users.includes(facts.callerId));
  return { mergeable: unmetRules.length === 0 || bypass, unmetRules };
}

/** The 403 message of a refused merge: every unmet rule. */
export function mergeRefusalMessage(unmet: readonly UnmetRule[]): string {
  return `The merge rules of this space are not met: ${unmet.map((item) => `${item.rule} (${item.message})`).join('; ')}`;
}

/**
 * Who may review: the `review` permission of the space (see space-policy), except the request's own
 * author, whose approval would make every review rule pass by itself.
 */
export function canReviewOwnChangeRequest(callerId: string, creatorId: string): boolean {
  return callerId !== creatorId;
}
