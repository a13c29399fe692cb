import { createHash } from 'node:crypto';
import type { components } from '@quire/api-types';
import type { Db } from '../db/index.js';
import { isUniqueViolation } from '../db/dialect.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest, type CursorKey } from '../pagination.js';
import { canIngestConversations, canReadConversations } from '../policies/conversation-policy.js';
import {
  CLUSTER_ORDER_KEY_LENGTH,
  clusterCursorFits,
  clusterFigures,
  CONVERSATION_ORDER_KEY_LENGTH,
  findClusterWithTasks,
  findConversation,
  findConversationBySourceId,
  findIssue,
  insertConversation,
  ISSUE_ORDER_KEY_LENGTH,
  listClusters,
  listConversations as listConversationRows,
  listIssues,
  updateConversationContent,
  type ClusterOrderBy,
  type ClusterWithTasks,
  type ConversationRow,
  type IssueWithConversation,
} from '../stores/conversation-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { enqueueConversationAnalysis } from './conversation-analysis.js';
import { organizationAccess } from './member-service.js';
import { pulseWeeks } from './conversation-weeks.js';

/*
 * Support conversations: ingestion (idempotent per organization, source and id) and the reads of
 * conversations, of the issues found in them and of their clusters. Finding issues and grouping them is
 * conversation-analysis.ts, run as a job after ingestion.
 */

type ConversationInput = components['schemas']['ConversationInput'];

/** The source of conversations ingested with a user's token when the request names none. */
export const DEFAULT_CONVERSATION_SOURCE = 'integration:api:default';

async function requireReader(context: ServiceContext, caller: Caller, organizationId: string): Promise<void> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canReadConversations(access.membership)) throw new ForbiddenError('Guests cannot read the support conversations of the organization');
}

/** What makes two ingestions of a conversation the same: everything that was sent. */
function contentHash(input: ConversationInput): string {
  return createHash('sha256').update(JSON.stringify([input.subject ?? null, input.parts, input.metadata ?? {}])).digest('hex');
}

/** Ingests one conversation; whether it was new or changed (and so waits for analysis). */
async function ingestOne(db: Db, organizationId: string, source: string, input: ConversationInput, now: string): Promise<boolean> {
  const hash = contentHash(input);
  const existing = await findConversationBySourceId(db, organizationId, source, input.id);
  if (existing && existing.content_hash === hash) return false;
  const content = {
    subject: input.subject ?? null,
    parts: JSON.stringify(input.parts),
    metadata: JSON.stringify(input.metadata ?? {}),
    content_hash: hash,
    started_at: input.metadata?.createdAt ? new Date(input.metadata.createdAt).toISOString() : existing?.started_at ?? now,
    updated_at: now,
  };
  if (existing) await updateConversationContent(db, existing.id, content);
  else await insertConversation(db, { id: newId(), organization_id: organizationId, source, external_id: input.id, created_at: now, processed_at: null, ...content });
  return true;
}

/**
 * Stores the conversations (new ones added, changed ones replaced, unchanged ones left as they are) and, when
 * any waits for analysis, queues the organization's analysis in the same transaction. A batch naming one id
 * twice is refused: which of the two should win would be a guess.
 */
export async function ingestConversation(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: ConversationInput | ConversationInput[],
  source: string = DEFAULT_CONVERSATION_SOURCE,
): Promise<void> {
  const inputs = Array.isArray(body) ? body : [body];
  const seen = new Map<string, number>();
  inputs.forEach((input, index) => {
    const earlier = seen.get(input.id);
    if (earlier !== undefined) throw new BadRequestError(`body[${index}].id "${input.id}" is the id of body[${earlier}] too; send each conversation once`);
    seen.set(input.id, index);
    if (input.metadata?.createdAt !== undefined && Number.isNaN(Date.parse(input.metadata.createdAt))) {
      throw new BadRequestError(`body[${index}].metadata.createdAt is not a date-time`);
    }
  });
  const write = () => inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canIngestConversations(access.membership)) throw new ForbiddenError('Ingesting conversations needs an organization role of edit or higher');
    const now = nowIso();
    let waiting = false;
    for (const input of inputs) if (await ingestOne(tx.db, organizationId, source, input, now)) waiting = true;
    if (waiting) await enqueueConversationAnalysis(tx.db, organizationId);
  });
  try {
    await write();
  } catch (error) {
    // Two requests ingesting the same new conversation at once: the second finds it there when it tries again.
    if (!isUniqueViolation(error)) throw error;
    await write();
  }
}

export async function listConversations(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number; source?: string },
): Promise<KeysetPage<ConversationRow>> {
  const { after, limit } = pageRequest(query, CONVERSATION_ORDER_KEY_LENGTH);
  await requireReader(context, caller, organizationId);
  return listConversationRows(context.db, organizationId, query.source, after, limit);
}

export async function getConversationById(context: ServiceContext, caller: Caller, organizationId: string, conversationId: string): Promise<ConversationRow> {
  await requireReader(context, caller, organizationId);
  const conversation = await findConversation(context.db, organizationId, conversationId);
  if (!conversation) throw new NotFoundError('The organization has no conversation with this id');
  return conversation;
}

export async function listConversationsIssues(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number; cluster?: string; conversation?: string },
): Promise<KeysetPage<IssueWithConversation>> {
  const { after, limit } = pageRequest(query, ISSUE_ORDER_KEY_LENGTH);
  await requireReader(context, caller, organizationId);
  return listIssues(context.db, organizationId, {
    ...(query.cluster !== undefined ? { clusterId: query.cluster } : {}),
    ...(query.conversation !== undefined ? { conversationId: query.conversation } : {}),
  }, after, limit);
}

export async function getConversationIssueById(context: ServiceContext, caller: Caller, organizationId: string, issueId: string): Promise<IssueWithConversation> {
  await requireReader(context, caller, organizationId);
  const issue = await findIssue(context.db, organizationId, issueId);
  if (!issue) throw new NotFoundError('The organization has no conversation issue with this id');
  return issue;
}

// ----- clusters -----

/** A cluster with the figures its API object shows. */
export interface ClusterView extends ClusterWithTasks {
  weeklyPulse: number[];
  sources: Record<string, number>;
}

async function withFigures(db: Db, clusters: readonly ClusterWithTasks[], now: Date): Promise<ClusterView[]> {
  const weeks = pulseWeeks(now);
  const figures = await clusterFigures(db, clusters.map((cluster) => cluster.id), weeks[0]!);
  return clusters.map((cluster) => {
    const byWeek = figures.weeks.get(cluster.id);
    return {
      ...cluster,
      weeklyPulse: weeks.map((week) => byWeek?.get(week) ?? 0),
      sources: Object.fromEntries(figures.sources.get(cluster.id) ?? []),
    };
  });
}

export async function listConversationsIssuesClusters(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number; order?: 'asc' | 'desc'; orderBy?: ClusterOrderBy; status?: 'pending' | 'analysing' },
): Promise<KeysetPage<ClusterView>> {
  const orderBy = query.orderBy ?? 'updatedAt';
  const { after, limit } = pageRequest(query, CLUSTER_ORDER_KEY_LENGTH);
  if (after && !clusterCursorFits(orderBy, after as CursorKey)) throw new BadRequestError('query.page is not a valid page cursor for this orderBy');
  await requireReader(context, caller, organizationId);
  const page = await listClusters(context.db, organizationId, { orderBy, order: query.order ?? 'desc', ...(query.status ? { status: query.status } : {}) }, after, limit);
  return { ...page, rows: await withFigures(context.db, page.rows, new Date()) };
}

export async function getConversationsIssuesCluster(context: ServiceContext, caller: Caller, organizationId: string, clusterId: string): Promise<ClusterView> {
  await requireReader(context, caller, organizationId);
  const cluster = await findClusterWithTasks(context.db, organizationId, clusterId);
  if (!cluster) throw new NotFoundError('The organization has no conversation issues cluster with this id');
  return (await withFigures(context.db, [cluster], new Date()))[0]!;
}
