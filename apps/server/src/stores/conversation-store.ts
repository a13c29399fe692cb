import { sql, type Selectable } from 'kysely';
import { toCount } from '../db/dialect.js';
import type { Db, DialectName } from '../db/index.js';
import type { ConversationAnalysisStatesTable, ConversationClustersTable, ConversationIssuesTable, ConversationsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';

/** Support conversations, the issues found in them, their clusters and the analysis bookkeeping. */

export type ConversationRow = Selectable<ConversationsTable>;
export type ConversationIssueRow = Selectable<ConversationIssuesTable>;
export type ConversationClusterRow = Selectable<ConversationClustersTable>;
export type ConversationAnalysisStateRow = Selectable<ConversationAnalysisStatesTable>;

// ----- conversations -----

const CONVERSATION_ORDER: KeysetOrder<ConversationRow> = { columns: ['created_at', 'id'], keyOf: (row) => [row.created_at, row.id], direction: 'desc' };
export const CONVERSATION_ORDER_KEY_LENGTH = CONVERSATION_ORDER.columns.length;

export async function findConversationBySourceId(db: Db, organizationId: string, source: string, externalId: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll()
    .where('organization_id', '=', organizationId).where('source', '=', source).where('external_id', '=', externalId)
    .executeTakeFirst();
}

export async function findConversation(db: Db, organizationId: string, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

export async function insertConversation(db: Db, row: ConversationRow): Promise<void> {
  await db.insertInto('conversations').values(row).execute();
}

export async function updateConversationContent(
  db: Db,
  id: string,
  content: Pick<ConversationRow, 'subject' | 'parts' | 'metadata' | 'content_hash' | 'started_at' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('conversations').set({ ...content, processed_at: null }).where('id', '=', id).execute();
}

export async function listConversations(db: Db, organizationId: string, source: string | undefined, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<ConversationRow>> {
  let query = db.selectFrom('conversations').selectAll().where('organization_id', '=', organizationId);
  if (source !== undefined) query = query.where('source', '=', source);
  return keysetPage(query, CONVERSATION_ORDER, after, limit);
}

/** Conversations waiting for analysis, in the order their issues are grouped: when they started, then source and id. */
export async function listPendingConversations(db: Db, organizationId: string, limit: number): Promise<ConversationRow[]> {
  return db.selectFrom('conversations').selectAll()
    .where('organization_id', '=', organizationId).where('processed_at', 'is', null)
    .orderBy('started_at').orderBy('source').orderBy('external_id')
    .limit(limit)
    .execute();
}

/** Organizations with conversations waiting for analysis. */
export async function listOrganizationsWithPendingConversations(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('conversations').select('organization_id').where('processed_at', 'is', null).distinct().execute();
  return rows.map((row) => row.organization_id);
}

/** Marks as analysed the conversations not changed since they were read (`updated_at` as read). */
export async function markConversationsProcessed(db: Db, read: ReadonlyArray<Pick<ConversationRow, 'id' | 'updated_at'>>, at: string): Promise<void> {
  for (const conversation of read) {
    await db.updateTable('conversations').set({ processed_at: at })
      .where('id', '=', conversation.id).where('updated_at', '=', conversation.updated_at).where('processed_at', 'is', null)
      .execute();
  }
}

// ----- issues -----

/** An issue with the conversation it was found in. */
export type IssueWithConversation = ConversationIssueRow & { conversation: ConversationRow };

const ISSUE_ORDER: KeysetOrder<{ created_at: string; id: string }> = { columns: ['i.created_at', 'i.id'], keyOf: (row) => [row.created_at, row.id], direction: 'desc' };
export const ISSUE_ORDER_KEY_LENGTH = ISSUE_ORDER.columns.length;

const CONVERSATION_COLUMNS = ['id', 'organization_id', 'source', 'external_id', 'subject', 'parts', 'metadata', 'content_hash', 'started_at', 'created_at', 'updated_at', 'processed_at'] as const;

function selectIssues(db: Db) {
  return db.selectFrom('conversation_issues as i')
    .innerJoin('conversations as c', 'c.id', 'i.conversation_id')
    .selectAll('i')
    .select(CONVERSATION_COLUMNS.map((column) => `c.${column} as c_${column}` as const));
}

function withConversation(row: Record<string, unknown>): IssueWithConversation {
  const issue: Record<string, unknown> = {};
  const conversation: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('c_')) conversation[key.slice(2)] = value;
    else issue[key] = value;
  }
  return { ...(issue as ConversationIssueRow), conversation: conversation as ConversationRow };
}

export async function listIssues(
  db: Db,
  organizationId: string,
  filter: { clusterId?: string; conversationId?: string },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<IssueWithConversation>> {
  let query = selectIssues(db).where('i.organization_id', '=', organizationId);
  if (filter.clusterId !== undefined) query = query.where('i.cluster_id', '=', filter.clusterId);
  if (filter.conversationId !== undefined) query = query.where('i.conversation_id', '=', filter.conversationId);
  const page = await keysetPage(query, ISSUE_ORDER, after, limit);
  return { ...page, rows: page.rows.map((row) => withConversation(row as Record<string, unknown>)) };
}

export async function findIssue(db: Db, organizationId: string, id: string): Promise<IssueWithConversation | undefined> {
  const row = await selectIssues(db).where('i.organization_id', '=', organizationId).where('i.id', '=', id).executeTakeFirst();
  return row ? withConversation(row as Record<string, unknown>) : undefined;
}

export async function listIssuesOfConversations(db: Db, conversationIds: readonly string[]): Promise<Array<Pick<ConversationIssueRow, 'conversation_id' | 'cluster_id' | 'terms'>>> {
  if (conversationIds.length === 0) return [];
  return db.selectFrom('conversation_issues').select(['conversation_id', 'cluster_id', 'terms'])
    .where('conversation_id', 'in', [...conversationIds]).orderBy('conversation_id').orderBy('position').execute();
}

export async function deleteIssuesOfConversations(db: Db, conversationIds: readonly string[]): Promise<void> {
  if (conversationIds.length === 0) return;
  await db.deleteFrom('conversation_issues').where('conversation_id', 'in', [...conversationIds]).execute();
}

export async function insertIssues(db: Db, rows: readonly ConversationIssueRow[]): Promise<void> {
  // Several rows per statement, below either dialect's limit on bound parameters.
  for (let start = 0; start < rows.length; start += 200) await db.insertInto('conversation_issues').values(rows.slice(start, start + 200)).execute();
}

/** The issues of each cluster, most recent first, at most `perCluster` of each: what a cluster's label is drawn from. */
export async function listIssuesForDescription(db: Db, clusterIds: readonly string[], perCluster: number): Promise<Map<string, Array<Pick<ConversationIssueRow, 'title' | 'summary' | 'terms'>>>> {
  const out = new Map<string, Array<Pick<ConversationIssueRow, 'title' | 'summary' | 'terms'>>>();
  for (const clusterId of clusterIds) {
    const rows = await db.selectFrom('conversation_issues').select(['title', 'summary', 'terms'])
      .where('cluster_id', '=', clusterId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perCluster).execute();
    out.set(clusterId, rows.reverse());
  }
  return out;
}

// ----- clusters -----

/** A cluster with its task counters (linked change requests by status). */
export interface ClusterWithTasks extends ConversationClusterRow {
  tasks_total: number;
  tasks_backlog: number;
  tasks_started: number;
  tasks_completed: number;
  tasks_cancelled: number;
}

export type ClusterOrderBy = 'updatedAt' | 'issues' | 'conversations' | 'tasksTotal' | 'tasksBacklog' | 'tasksStarted';

const ORDER_COLUMNS: Readonly<Record<ClusterOrderBy, keyof ClusterWithTasks>> = {
  updatedAt: 'updated_at',
  issues: 'issues_count',
  conversations: 'conversations_count',
  tasksTotal: 'tasks_total',
  tasksBacklog: 'tasks_backlog',
  tasksStarted: 'tasks_started',
};
export const CLUSTER_ORDER_KEY_LENGTH = 2;

/**
 * Clusters with their task counters: change requests of the organization's spaces (deleted ones left out)
 * that are linked to them, counted by status in one grouped subquery.
 */
function selectClusters(db: Db, organizationId: string) {
  const tasks = db.selectFrom('change_requests as cr')
    .innerJoin('spaces as s', 's.id', 'cr.space_id')
    .where('s.organization_id', '=', organizationId)
    .where('s.deleted_at', 'is', null)
    .where('cr.conversations_issues_cluster', 'is not', null)
    .groupBy('cr.conversations_issues_cluster')
    .select([
      'cr.conversations_issues_cluster as cluster_id',
      sql<number>`count(*)`.as('total'),
      sql<number>`sum(case when cr.status = 'draft' then 1 else 0 end)`.as('backlog'),
      sql<number>`sum(case when cr.status = 'open' then 1 else 0 end)`.as('started'),
      sql<number>`sum(case when cr.status = 'merged' then 1 else 0 end)`.as('completed'),
      sql<number>`sum(case when cr.status = 'archived' then 1 else 0 end)`.as('cancelled'),
    ]);
  const inner = db.selectFrom('conversation_clusters as c')
    .leftJoin(tasks.as('t'), 't.cluster_id', 'c.id')
    .where('c.organization_id', '=', organizationId)
    .selectAll('c')
    .select([
      sql<number>`coalesce(t.total, 0)`.as('tasks_total'),
      sql<number>`coalesce(t.backlog, 0)`.as('tasks_backlog'),
      sql<number>`coalesce(t.started, 0)`.as('tasks_started'),
      sql<number>`coalesce(t.completed, 0)`.as('tasks_completed'),
      sql<number>`coalesce(t.cancelled, 0)`.as('tasks_cancelled'),
    ]);
  return db.selectFrom(inner.as('k')).selectAll('k');
}

function toClusterWithTasks(row: Record<string, unknown>): ClusterWithTasks {
  const cluster = row as unknown as ClusterWithTasks;
  return {
    ...cluster,
    issues_count: toCount(cluster.issues_count),
    conversations_count: toCount(cluster.conversations_count),
    sequence: toCount(cluster.sequence),
    tasks_total: toCount(cluster.tasks_total),
    tasks_backlog: toCount(cluster.tasks_backlog),
    tasks_started: toCount(cluster.tasks_started),
    tasks_completed: toCount(cluster.tasks_completed),
    tasks_cancelled: toCount(cluster.tasks_cancelled),
  };
}

/** Whether a cursor value fits the order (a number for the counters, a string for updatedAt). */
export function clusterCursorFits(orderBy: ClusterOrderBy, key: ReadonlyArray<string | number>): boolean {
  return typeof key[0] === (orderBy === 'updatedAt' ? 'string' : 'number') && typeof key[1] === 'string';
}

export async function listClusters(
  db: Db,
  organizationId: string,
  options: { orderBy: ClusterOrderBy; order: 'asc' | 'desc'; status?: 'pending' | 'analysing' },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<ClusterWithTasks>> {
  let query = selectClusters(db, organizationId);
  if (options.status) query = query.where('k.status', '=', options.status);
  const column = ORDER_COLUMNS[options.orderBy];
  const page = await keysetPage(query, {
    columns: [`k.${column}`, 'k.id'],
    keyOf: (row) => [toCountIfNumeric(options.orderBy, (row as Record<string, unknown>)[column]), (row as { id: string }).id],
    direction: options.order,
    kinds: [options.orderBy === 'updatedAt' ? 'string' : 'number', 'string'],
  }, after, limit);
  return { ...page, rows: page.rows.map((row) => toClusterWithTasks(row as Record<string, unknown>)) };
}

function toCountIfNumeric(orderBy: ClusterOrderBy, value: unknown): string | number {
  return orderBy === 'updatedAt' ? String(value) : toCount(value);
}

export async function findClusterWithTasks(db: Db, organizationId: string, id: string): Promise<ClusterWithTasks | undefined> {
  const row = await selectClusters(db, organizationId).where('k.id', '=', id).executeTakeFirst();
  return row ? toClusterWithTasks(row as Record<string, unknown>) : undefined;
}

export async function clusterExists(db: Db, organizationId: string, id: string): Promise<boolean> {
  return (await db.selectFrom('conversation_clusters').select('id').where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Issues per week (Monday ISO dates from `firstWeek` on) and per source, for each cluster. */
export async function clusterFigures(db: Db, clusterIds: readonly string[], firstWeek: string): Promise<{ weeks: Map<string, Map<string, number>>; sources: Map<string, Map<string, number>> }> {
  const weeks = new Map<string, Map<string, number>>();
  const sources = new Map<string, Map<string, number>>();
  if (clusterIds.length === 0) return { weeks, sources };
  const ids = [...clusterIds];
  const [byWeek, bySource] = await Promise.all([
    db.selectFrom('conversation_issues').select(['cluster_id', 'week', sql<number>`count(*)`.as('count')])
      .where('cluster_id', 'in', ids).where('week', '>=', firstWeek).groupBy(['cluster_id', 'week']).execute(),
    db.selectFrom('conversation_issues').select(['cluster_id', 'source', sql<number>`count(*)`.as('count')])
      .where('cluster_id', 'in', ids).groupBy(['cluster_id', 'source']).execute(),
  ]);
  for (const row of byWeek) {
    const map = weeks.get(row.cluster_id!) ?? new Map<string, number>();
    map.set(row.week, toCount(row.count));
    weeks.set(row.cluster_id!, map);
  }
  for (const row of bySource) {
    const map = sources.get(row.cluster_id!) ?? new Map<string, number>();
    map.set(row.source, toCount(row.count));
    sources.set(row.cluster_id!, map);
  }
  return { weeks, sources };
}

export async function listClusterVectors(db: Db, organizationId: string): Promise<Array<Pick<ConversationClusterRow, 'id' | 'sequence' | 'terms'>>> {
  const rows = await db.selectFrom('conversation_clusters').select(['id', 'sequence', 'terms']).where('organization_id', '=', organizationId).orderBy('sequence').execute();
  return rows.map((row) => ({ ...row, sequence: toCount(row.sequence) }));
}

export async function insertClusters(db: Db, rows: readonly ConversationClusterRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) await db.insertInto('conversation_clusters').values(rows.slice(start, start + 200)).execute();
}

export async function updateClusterTerms(db: Db, id: string, terms: string, at: string): Promise<void> {
  await db.updateTable('conversation_clusters').set({ terms, status: 'pending', updated_at: at }).where('id', '=', id).execute();
}

/** Recounts the issues and distinct conversations of the clusters, then deletes those left with no issue. */
export async function recountClusters(db: Db, clusterIds: readonly string[]): Promise<void> {
  for (let start = 0; start < clusterIds.length; start += 200) {
    const ids = clusterIds.slice(start, start + 200);
    await db.updateTable('conversation_clusters as c').set({
      issues_count: sql<number>`(select count(*) from conversation_issues i where i.cluster_id = c.id)`,
      conversations_count: sql<number>`(select count(distinct i.conversation_id) from conversation_issues i where i.cluster_id = c.id)`,
    }).where('c.id', 'in', ids).execute();
    await db.deleteFrom('conversation_clusters').where('id', 'in', ids).where('issues_count', '=', 0).execute();
  }
}

/** Moves the clusters from one state to another (only those still in `from`); answers the ids moved. */
export async function moveClusterStatus(db: Db, clusterIds: readonly string[], from: ConversationClusterRow['status'], to: ConversationClusterRow['status']): Promise<string[]> {
  const moved: string[] = [];
  for (let start = 0; start < clusterIds.length; start += 200) {
    const ids = clusterIds.slice(start, start + 200);
    const rows = await db.selectFrom('conversation_clusters').select('id').where('id', 'in', ids).where('status', '=', from).execute();
    if (rows.length === 0) continue;
    await db.updateTable('conversation_clusters').set({ status: to }).where('id', 'in', rows.map((row) => row.id)).where('status', '=', from).execute();
    moved.push(...rows.map((row) => row.id));
  }
  return moved;
}

export async function describeClusterRow(db: Db, id: string, description: { label: string; summary: string; icon: string }): Promise<void> {
  await db.updateTable('conversation_clusters').set({ ...description, status: 'ready' }).where('id', '=', id).where('status', '=', 'analysing').execute();
}

// ----- analysis bookkeeping -----

export async function loadTermIssues(db: Db, organizationId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom('conversation_terms').select(['term', 'issues']).where('organization_id', '=', organizationId).execute();
  const out: Record<string, number> = {};
  for (const row of rows) out[row.term] = toCount(row.issues);
  return out;
}

export async function saveTermIssues(db: Db, organizationId: string, changes: Readonly<Record<string, number>>): Promise<void> {
  const entries = Object.entries(changes);
  const gone = entries.filter(([, issues]) => issues <= 0).map(([term]) => term);
  for (let start = 0; start < gone.length; start += 500) {
    await db.deleteFrom('conversation_terms').where('organization_id', '=', organizationId).where('term', 'in', gone.slice(start, start + 500)).execute();
  }
  const kept = entries.filter(([, issues]) => issues > 0).map(([term, issues]) => ({ organization_id: organizationId, term, issues }));
  for (let start = 0; start < kept.length; start += 300) {
    await db.insertInto('conversation_terms').values(kept.slice(start, start + 300))
      .onConflict((oc) => oc.columns(['organization_id', 'term']).doUpdateSet({ issues: (eb) => eb.ref('excluded.issues') }))
      .execute();
  }
}

export async function findAnalysisState(db: Db, organizationId: string): Promise<ConversationAnalysisStateRow | undefined> {
  const row = await db.selectFrom('conversation_analysis_states').selectAll().where('organization_id', '=', organizationId).executeTakeFirst();
  return row ? { ...row, issues: toCount(row.issues), clusters_made: toCount(row.clusters_made), version: toCount(row.version) } : undefined;
}

/** The organization's analysis state, locked for the transaction (made when missing). */
export async function lockAnalysisState(db: Db, dialect: DialectName, organizationId: string, at: string): Promise<ConversationAnalysisStateRow> {
  await db.insertInto('conversation_analysis_states').values({ organization_id: organizationId, issues: 0, clusters_made: 0, version: 0, updated_at: at })
    .onConflict((oc) => oc.column('organization_id').doNothing()).execute();
  const select = db.selectFrom('conversation_analysis_states').selectAll().where('organization_id', '=', organizationId);
  // SQLite's transactions begin immediate: the one writer already holds the database.
  const row = await (dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirstOrThrow();
  return { ...row, issues: toCount(row.issues), clusters_made: toCount(row.clusters_made), version: toCount(row.version) };
}

export async function saveAnalysisState(db: Db, state: ConversationAnalysisStateRow): Promise<void> {
  await db.updateTable('conversation_analysis_states')
    .set({ issues: state.issues, clusters_made: state.clusters_made, version: state.version, updated_at: state.updated_at })
    .where('organization_id', '=', state.organization_id).execute();
}

/** How many issues and clusters an organization's conversations have produced (for benches and reports). */
export async function countAnalysisResults(db: Db, organizationId: string): Promise<{ issues: number; clusters: number }> {
  const count = async (table: 'conversation_issues' | 'conversation_clusters') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow()).n);
  return { issues: await count('conversation_issues'), clusters: await count('conversation_clusters') };
}
