import { describeClustersOffThread, groupBatchOffThread } from '../analysis/analysis-pool.js';
import { DEFAULT_ICON } from '../analysis/default-icon.js';
import type { Db } from '../db/index.js';
import { BadRequestError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { enqueueJob } from '../jobs/queue.js';
import {
  clusterExists,
  deleteIssuesOfConversations,
  describeClusterRow,
  insertClusters,
  insertIssues,
  listClusterVectors,
  listIssuesForDescription,
  listIssuesOfConversations,
  listPendingConversations,
  loadTermIssues,
  lockAnalysisState,
  markConversationsProcessed,
  moveClusterStatus,
  recountClusters,
  saveAnalysisState,
  saveTermIssues,
  updateClusterTerms,
  type ConversationIssueRow,
} from '../stores/conversation-store.js';
import { hasQueuedJob } from '../stores/job-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { weekOf } from './conversation-weeks.js';

/*
 * The analysis of an organization's conversations, run by the `conversations.analyse` job that ingestion
 * queues. Each pass takes every conversation waiting (up to BATCH_SIZE, oldest start first), has the
 * worker thread find their issues and group them (src/analysis, pure), and writes the outcome in one
 * transaction; then the label, summary and icon of every cluster that changed are drawn again from its
 * issues. Passes repeat until nothing waits. A pass whose organization was analysed by another worker
 * meanwhile (the state's version moved) starts again from fresh reads, so two workers never interleave
 * their writes; running the job twice is harmless.
 */

export const CONVERSATION_ANALYSIS_JOB = 'conversations.analyse';

/** Conversations analysed per pass: a burst of ingestion is analysed together, within a bounded memory. */
export const BATCH_SIZE = 1000;
/** A cluster's label is drawn from its most recent issues, at most this many. */
const DESCRIPTION_ISSUES = 500;

export interface ConversationAnalysisPayload {
  organizationId: string;
}

/** Queues the organization's analysis in the caller's transaction, unless one is already queued. */
export async function enqueueConversationAnalysis(db: Db, organizationId: string): Promise<void> {
  const payload: ConversationAnalysisPayload = { organizationId };
  if (await hasQueuedJob(db, CONVERSATION_ANALYSIS_JOB, JSON.stringify(payload))) return;
  await enqueueJob(db, CONVERSATION_ANALYSIS_JOB, payload);
}

interface PassOutcome {
  analysed: number;
  /** Clusters whose issues changed: their descriptions are drawn again. */
  clusters: string[];
}

async function analysisPass(context: ServiceContext, organizationId: string): Promise<PassOutcome> {
  const { db } = context;
  const state = await inTransaction(context, (tx) => lockAnalysisState(tx.db, context.dialect, organizationId, nowIso()));
  const pending = await listPendingConversations(db, organizationId, BATCH_SIZE);
  if (pending.length === 0) return { analysed: 0, clusters: [] };
  const previous = await listIssuesOfConversations(db, pending.map((conversation) => conversation.id));
  const previousOf = new Map<string, Array<{ clusterId: string | null; terms: Record<string, number> }>>();
  for (const issue of previous) {
    const list = previousOf.get(issue.conversation_id) ?? [];
    list.push({ clusterId: issue.cluster_id, terms: JSON.parse(issue.terms) as Record<string, number> });
    previousOf.set(issue.conversation_id, list);
  }
  const clusters = await listClusterVectors(db, organizationId);
  const termIssues = await loadTermIssues(db, organizationId);

  const output = await groupBatchOffThread({
    clusters: clusters.map((cluster) => ({ id: cluster.id, sequence: cluster.sequence, terms: JSON.parse(cluster.terms) as Record<string, number> })),
    termIssues,
    issueCount: state.issues,
    conversations: pending.map((conversation) => ({
      key: conversation.id,
      ...(conversation.subject ? { subject: conversation.subject } : {}),
      parts: JSON.parse(conversation.parts) as Array<{ role: string; body: string }>,
      previousIssues: previousOf.get(conversation.id) ?? [],
    })),
  });

  const written = await inTransaction(context, async (tx) => {
    const current = await lockAnalysisState(tx.db, context.dialect, organizationId, nowIso());
    if (current.version !== state.version) return undefined;
    const now = nowIso();
    const ids = new Map<string, string>();
    const newClusters = output.clusters.filter((cluster) => cluster.isNew);
    const firstIssue = new Map<string, { title: string; summary: string }>();
    for (const { issues } of output.issues) for (const issue of issues) if (!firstIssue.has(issue.cluster)) firstIssue.set(issue.cluster, issue);
    for (const cluster of newClusters) ids.set(cluster.ref, newId());
    await insertClusters(tx.db, newClusters.map((cluster) => ({
      id: ids.get(cluster.ref)!,
      organization_id: organizationId,
      // Until its description is drawn, a new cluster is named after its first issue.
      label: firstIssue.get(cluster.ref)?.title ?? 'Issues',
      summary: firstIssue.get(cluster.ref)?.summary ?? '',
      icon: DEFAULT_ICON,
      status: 'pending',
      terms: JSON.stringify(cluster.terms),
      sequence: cluster.sequence,
      issues_count: 0,
      conversations_count: 0,
      created_at: now,
      updated_at: now,
    })));
    for (const cluster of output.clusters) if (!cluster.isNew) await updateClusterTerms(tx.db, cluster.ref, JSON.stringify(cluster.terms), now);

    await deleteIssuesOfConversations(tx.db, pending.map((conversation) => conversation.id));
    const byId = new Map(pending.map((conversation) => [conversation.id, conversation]));
    const rows: ConversationIssueRow[] = [];
    for (const { key, issues } of output.issues) {
      const conversation = byId.get(key)!;
      issues.forEach((issue, position) => rows.push({
        id: newId(),
        organization_id: organizationId,
        conversation_id: key,
        cluster_id: ids.get(issue.cluster) ?? issue.cluster,
        position,
        title: issue.title,
        summary: issue.summary,
        terms: JSON.stringify(issue.terms),
        source: conversation.source,
        week: weekOf(conversation.started_at),
        ingested_at: conversation.updated_at,
        created_at: now,
      }));
    }
    await insertIssues(tx.db, rows);
    const touched = output.clusters.map((cluster) => ids.get(cluster.ref) ?? cluster.ref);
    for (const issue of previous) if (issue.cluster_id && !touched.includes(issue.cluster_id)) touched.push(issue.cluster_id);
    await recountClusters(tx.db, touched);
    await saveTermIssues(tx.db, organizationId, output.termIssues);
    await markConversationsProcessed(tx.db, pending, now);
    await saveAnalysisState(tx.db, { ...current, issues: output.issueCount, clusters_made: current.clusters_made + newClusters.length, version: current.version + 1, updated_at: now });
    return touched;
  });
  // Another worker analysed this organization in between: this pass's reads are stale, so it starts again.
  if (written === undefined) return { analysed: 0, clusters: [] };
  return { analysed: pending.length, clusters: written };
}

/** Draws again the label, summary and icon of the clusters from their issues. */
async function describeClusters(context: ServiceContext, clusterIds: readonly string[]): Promise<void> {
  const { db } = context;
  const analysing = await inTransaction(context, (tx) => moveClusterStatus(tx.db, clusterIds, 'pending', 'analysing'));
  for (let start = 0; start < analysing.length; start += 100) {
    const ids = analysing.slice(start, start + 100);
    const issues = await listIssuesForDescription(db, ids, DESCRIPTION_ISSUES);
    const present = ids.filter((id) => (issues.get(id)?.length ?? 0) > 0);
    const descriptions = await describeClustersOffThread(present.map((id) => issues.get(id)!.map((issue) => ({
      title: issue.title,
      summary: issue.summary,
      terms: JSON.parse(issue.terms) as Record<string, number>,
    }))));
    await inTransaction(context, async (tx) => {
      for (const [index, id] of present.entries()) await describeClusterRow(tx.db, id, descriptions[index]!);
    });
  }
}

/** Passes a job makes at most; what is left waits for the next job (ingestion queues one). */
const MAX_PASSES = 100;

/** Analyses every conversation of the organization that waits; answers how many were analysed. */
export async function analyseConversations(context: ServiceContext, organizationId: string, signal?: AbortSignal): Promise<number> {
  let analysed = 0;
  for (let pass = 0; pass < MAX_PASSES && !signal?.aborted; pass++) {
    const outcome = await analysisPass(context, organizationId);
    if (outcome.analysed === 0 && outcome.clusters.length === 0) {
      // Nothing waited, or the pass lost a race: look once more before stopping.
      if ((await listPendingConversations(context.db, organizationId, 1)).length === 0) break;
      continue;
    }
    analysed += outcome.analysed;
    await describeClusters(context, outcome.clusters);
  }
  return analysed;
}

/**
 * The cluster a change request is linked to, checked: it must be a cluster of the organization the change
 * request's space is in (400 otherwise). Null unlinks.
 */
export async function checkClusterLink(db: Db, organizationId: string, clusterId: string | null | undefined, field: string): Promise<string | null | undefined> {
  if (clusterId === undefined || clusterId === null) return clusterId;
  if (!(await clusterExists(db, organizationId, clusterId))) throw new BadRequestError(`${field}: the organization has no conversation issues cluster "${clusterId}"`);
  return clusterId;
}
