import { findIssues, type ConversationText, type FoundIssue } from './issues.js';
import { iconFor } from './icons.js';
import { addInto, cosine, fromRecord, norm, toRecord, topTerms, type TermVector } from './vectors.js';

/*
 * Grouping issues into clusters, one batch of conversations at a time, with no service outside this process.
 *
 * Method: each issue is a TF-IDF vector of its stems (sublinear term frequency, IDF ln((N+1)/(df+1)) + 1 over
 * every issue of the organization, this batch's included). A cluster is the sum of its issues' term
 * frequencies, weighted by the same IDF when compared. Issues are taken in the order given (the caller sorts
 * them by when their conversation started, then source and id), and each joins the cluster it is most
 * similar to (cosine) when that similarity reaches the threshold, or starts a new cluster. Ties go to the
 * older cluster. Nothing random, no iteration over unordered collections: the same input in the same order
 * always gives the same clusters. The threshold was learned on the labelled set of test/fixtures
 * (see README.md beside this file and `npm run bench -- --only conversations`).
 */

/** Learned on the training half of the labelled set: the threshold with the best adjusted Rand index. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.2;
/** A cluster keeps this many of its heaviest terms (bounds its size and the cost of comparing with it). */
export const MAX_CLUSTER_TERMS = 300;

export interface ExistingCluster {
  id: string;
  sequence: number;
  terms: Record<string, number>;
}

export interface BatchConversation extends ConversationText {
  /** The caller's key of the conversation, answered back with its issues. */
  key: string;
  /** The issues it had from an earlier analysis (re-ingested with other content): taken out first. */
  previousIssues?: ReadonlyArray<{ clusterId: string | null; terms: Record<string, number> }>;
}

export interface BatchInput {
  threshold?: number;
  clusters: readonly ExistingCluster[];
  /** Issues of the organization per term, and the number of issues, before this batch. */
  termIssues: Readonly<Record<string, number>>;
  issueCount: number;
  /** In the order their issues are grouped. */
  conversations: readonly BatchConversation[];
}

export interface BatchIssue {
  title: string;
  summary: string;
  terms: Record<string, number>;
  /** An existing cluster's id, or `new:<n>` for the n-th cluster this batch made. */
  cluster: string;
}

export interface BatchOutput {
  issues: Array<{ key: string; issues: BatchIssue[] }>;
  /** Clusters whose terms changed (existing ones by id, new ones as `new:<n>` with their sequence). */
  clusters: Array<{ ref: string; sequence: number; terms: Record<string, number>; isNew: boolean }>;
  /** The new issue count per term for the terms that changed (0: no issue uses the term any more). */
  termIssues: Record<string, number>;
  issueCount: number;
}

interface WorkingCluster {
  ref: string;
  sequence: number;
  terms: TermVector;
  isNew: boolean;
  /** Norm of the IDF-weighted terms; undefined when it must be computed again. */
  norm: number | undefined;
}

/** Finds the issues of a batch of conversations and groups them; pure. */
export function groupBatch(input: BatchInput): BatchOutput {
  return groupFoundIssues(input, input.conversations.map((conversation) => ({ key: conversation.key, issues: findIssues(conversation) })));
}

/** Groups issues already found in the batch's conversations (`found`, in the order of `input.conversations`). */
export function groupFoundIssues(input: BatchInput, found: ReadonlyArray<{ key: string; issues: readonly FoundIssue[] }>): BatchOutput {
  const threshold = input.threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  const clusters = new Map<string, WorkingCluster>();
  for (const cluster of [...input.clusters].sort((a, b) => a.sequence - b.sequence)) {
    clusters.set(cluster.id, { ref: cluster.id, sequence: cluster.sequence, terms: fromRecord(cluster.terms), isNew: false, norm: undefined });
  }
  const changed = new Set<string>();
  const df = new Map(Object.entries(input.termIssues));
  const dfChanged = new Set<string>();
  let issueCount = input.issueCount;
  const countTerms = (vector: ReadonlyMap<string, number>, delta: number) => {
    for (const term of vector.keys()) {
      df.set(term, Math.max(0, (df.get(term) ?? 0) + delta));
      dfChanged.add(term);
    }
  };

  // 1. What earlier analyses of these conversations added is taken out.
  for (const conversation of input.conversations) {
    for (const previous of conversation.previousIssues ?? []) {
      const vector = fromRecord(previous.terms);
      countTerms(vector, -1);
      issueCount -= 1;
      const cluster = previous.clusterId ? clusters.get(previous.clusterId) : undefined;
      if (cluster) {
        addInto(cluster.terms, vector, -1);
        changed.add(cluster.ref);
      }
    }
  }

  // 2. The issues of every conversation, counted into the IDF before any is compared.
  for (const { issues } of found) {
    for (const issue of issues) countTerms(issue.terms, 1);
    issueCount += issues.length;
  }
  const idf = new Map<string, number>();
  const weight = (term: string): number => {
    let value = idf.get(term);
    if (value === undefined) {
      value = Math.log((issueCount + 1) / ((df.get(term) ?? 0) + 1)) + 1;
      idf.set(term, value);
    }
    return value;
  };

  // 3. Inverted index from terms to the clusters that have them, to compare an issue with those only.
  const postings = new Map<string, Set<WorkingCluster>>();
  const index = (cluster: WorkingCluster, vector: ReadonlyMap<string, number>) => {
    for (const term of vector.keys()) {
      let set = postings.get(term);
      if (!set) postings.set(term, (set = new Set()));
      set.add(cluster);
    }
  };
  for (const cluster of clusters.values()) index(cluster, cluster.terms);

  let nextSequence = Math.max(0, ...[...clusters.values()].map((cluster) => cluster.sequence + 1));
  let made = 0;
  const output: BatchOutput['issues'] = [];
  for (const { key, issues } of found) {
    const grouped: BatchIssue[] = [];
    for (const issue of issues) {
      const issueNorm = norm(issue.terms, weight);
      const dots = new Map<WorkingCluster, number>();
      for (const [term, value] of issue.terms) {
        const holders = postings.get(term);
        if (!holders) continue;
        const w = weight(term);
        for (const cluster of holders) {
          const other = cluster.terms.get(term);
          if (other !== undefined) dots.set(cluster, (dots.get(cluster) ?? 0) + value * w * other * w);
        }
      }
      let best: WorkingCluster | undefined;
      let bestScore = -1;
      for (const [cluster, dot] of dots) {
        cluster.norm ??= norm(cluster.terms, weight);
        const score = issueNorm > 0 && cluster.norm > 0 ? dot / (issueNorm * cluster.norm) : 0;
        if (score > bestScore + 1e-12 || (Math.abs(score - bestScore) <= 1e-12 && best !== undefined && cluster.sequence < best.sequence)) {
          best = cluster;
          bestScore = score;
        }
      }
      let target: WorkingCluster;
      if (best && bestScore >= threshold) {
        target = best;
      } else {
        made += 1;
        target = { ref: `new:${made}`, sequence: nextSequence++, terms: new Map(), isNew: true, norm: undefined };
        clusters.set(target.ref, target);
      }
      addInto(target.terms, issue.terms);
      target.norm = undefined;
      index(target, issue.terms);
      changed.add(target.ref);
      grouped.push({ title: issue.title, summary: issue.summary, terms: toRecord(issue.terms), cluster: target.ref });
    }
    output.push({ key, issues: grouped });
  }

  const termIssues: Record<string, number> = {};
  for (const term of dfChanged) termIssues[term] = df.get(term) ?? 0;
  return {
    issues: output,
    clusters: [...changed].map((ref) => clusters.get(ref)!).map((cluster) => ({
      ref: cluster.ref,
      sequence: cluster.sequence,
      terms: toRecord(topTerms(cluster.terms, MAX_CLUSTER_TERMS)),
      isNew: cluster.isNew,
    })),
    termIssues,
    issueCount,
  };
}

export interface ClusterDescription {
  label: string;
  summary: string;
  icon: string;
}

export const MAX_LABEL_LENGTH = 80;

/**
 * The label, summary and icon of a cluster, drawn from its issues: those of the issue closest to the
 * cluster's centre (its medoid; ties go to the earlier issue), and the icon of its heaviest terms.
 */
export function describeCluster(issues: ReadonlyArray<{ title: string; summary: string; terms: Record<string, number> }>): ClusterDescription {
  const centroid: TermVector = new Map();
  const vectors = issues.map((issue) => fromRecord(issue.terms));
  for (const vector of vectors) addInto(centroid, vector);
  let best = 0;
  let bestScore = -1;
  vectors.forEach((vector, index) => {
    const score = cosine(vector, centroid);
    if (score > bestScore + 1e-12) {
      best = index;
      bestScore = score;
    }
  });
  const medoid = issues[best];
  const label = medoid ? medoid.title : 'Issues';
  return {
    label: label.length > MAX_LABEL_LENGTH ? `${label.slice(0, MAX_LABEL_LENGTH - 1).trimEnd()}…` : label,
    summary: medoid ? medoid.summary : '',
    icon: iconFor(topTerms(centroid, 20)),
  };
}
