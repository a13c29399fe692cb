import { closeAnalysisPool } from '#server/analysis/analysis-pool.js';
import { DEFAULT_SIMILARITY_THRESHOLD, MAX_CLUSTER_TERMS } from '#server/analysis/clustering.js';
import { MAX_ISSUES_PER_CONVERSATION } from '#server/analysis/issues.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { analyseConversations } from '#server/services/conversation-analysis.js';
import { ingestConversation } from '#server/services/conversation-service.js';
import { countAnalysisResults } from '#server/stores/conversation-store.js';
import { openBenchDatabase } from './bench-database.js';
import { bootstrapBench } from './bench-owner.js';
import { generateCorpus, LABELLED_SET, learnThreshold, scoreGrouping, SPLIT_SEED, splitSet, type GroupingScore } from './conversation-corpus.js';
import { printReport, runIfScript, stringOption } from './report.js';

/*
 * Conversations: the quality of the grouping on the labelled set (threshold learned on a seeded half,
 * scored on the other half), and the time to ingest (through the service, 100 per request as a client
 * would send them) and analyse 1,000 and 10,000 generated conversations on a fresh database.
 * Standalone: `node bench-dist/conversation-bench.js [--sizes 1000,10000] [--database-url url] [--json]`.
 */

export interface ScaleMeasure {
  conversations: number;
  ingestMs: number;
  analyseMs: number;
  issues: number;
  clusters: number;
}

export interface ConversationBenchReport {
  method: { threshold: number; learnedThreshold: number; maxClusterTerms: number; maxIssuesPerConversation: number; split: string };
  training: GroupingScore;
  test: GroupingScore;
  scales: ScaleMeasure[];
}

async function measureScale(size: number, databaseUrl: string | undefined, log: (line: string) => void): Promise<ScaleMeasure> {
  const bench = await openBenchDatabase('conversations', databaseUrl);
  try {
    await migrateToLatest(bench.handle);
    const { context, caller, organizationId } = await bootstrapBench(bench.handle, 'Bench');
    const corpus = generateCorpus({ count: size, seed: 1000 + size }).map((item) => item.conversation);
    log(`conversations bench: ingesting ${size} conversations...`);
    const ingestStart = performance.now();
    for (let start = 0; start < corpus.length; start += 100) await ingestConversation(context, caller, organizationId, corpus.slice(start, start + 100));
    const ingestMs = performance.now() - ingestStart;
    log(`conversations bench: analysing ${size} conversations...`);
    const analyseStart = performance.now();
    await analyseConversations(context, organizationId);
    const analyseMs = performance.now() - analyseStart;
    const { issues, clusters } = await countAnalysisResults(context.db, organizationId);
    return { conversations: size, ingestMs: Math.round(ingestMs), analyseMs: Math.round(analyseMs), issues, clusters };
  } finally {
    await bench.cleanup();
  }
}

export async function runConversationBench(options: { sizes?: number[]; databaseUrl?: string; log?: (line: string) => void } = {}): Promise<ConversationBenchReport> {
  const log = options.log ?? (() => {});
  const set = generateCorpus(LABELLED_SET);
  const [training, test] = splitSet(set, SPLIT_SEED);
  log('conversations bench: learning the threshold on the labelled set...');
  const learned = learnThreshold(training);
  const scales: ScaleMeasure[] = [];
  try {
    for (const size of options.sizes ?? [1000, 10_000]) scales.push(await measureScale(size, options.databaseUrl, log));
  } finally {
    await closeAnalysisPool();
  }
  return {
    method: {
      threshold: DEFAULT_SIMILARITY_THRESHOLD,
      learnedThreshold: learned.best.threshold,
      maxClusterTerms: MAX_CLUSTER_TERMS,
      maxIssuesPerConversation: MAX_ISSUES_PER_CONVERSATION,
      split: `${LABELLED_SET.count} labelled conversations (seed ${LABELLED_SET.seed}), halves by seed ${SPLIT_SEED}`,
    },
    training: learned.best,
    test: scoreGrouping(test, DEFAULT_SIMILARITY_THRESHOLD),
    scales,
  };
}

function scoreLine(name: string, score: GroupingScore): string {
  return `${name.padEnd(9)} ${String(score.conversations).padStart(5)} conv ${String(score.foundIssues).padStart(5)}/${score.trueIssues} issues (${(score.issueCountAccuracy * 100).toFixed(1)}% right count)  ${String(score.clusters).padStart(4)} clusters | problem+language (${score.byLanguage.trueClusters}): purity ${score.byLanguage.purity.toFixed(3)} ARI ${score.byLanguage.adjustedRandIndex.toFixed(3)} | problem (${score.byProblem.trueClusters}): purity ${score.byProblem.purity.toFixed(3)} ARI ${score.byProblem.adjustedRandIndex.toFixed(3)}`;
}

export function formatConversationBenchReport(report: ConversationBenchReport): string {
  const lines = [
    `conversations: TF-IDF (sublinear tf, Snowball stems, stop words) + cosine, leader clustering, threshold ${report.method.threshold} (learned: ${report.method.learnedThreshold}), ${report.method.maxClusterTerms} terms per cluster, at most ${report.method.maxIssuesPerConversation} issues per conversation`,
    `labelled set: ${report.method.split}`,
    scoreLine('training', report.training),
    scoreLine('test', report.test),
  ];
  const first = report.scales[0];
  for (const scale of report.scales) {
    const growth = first && scale !== first ? `  (x${(scale.conversations / first.conversations).toFixed(0)} conversations: ingest x${(scale.ingestMs / first.ingestMs).toFixed(1)}, analyse x${(scale.analyseMs / first.analyseMs).toFixed(1)})` : '';
    lines.push(`${String(scale.conversations).padStart(6)} conversations: ingest ${scale.ingestMs} ms, analyse ${scale.analyseMs} ms -> ${scale.issues} issues in ${scale.clusters} clusters${growth}`);
  }
  return lines.join('\n');
}

runIfScript(import.meta.url, 'conversation-bench', async () => {
  const sizes = stringOption('sizes')?.split(',').map((value) => Number(value)).filter((value) => Number.isInteger(value) && value > 0);
  const report = await runConversationBench({ ...(sizes?.length ? { sizes } : {}), ...(stringOption('database-url') ? { databaseUrl: stringOption('database-url')! } : {}), log: (line) => process.stderr.write(`${line}\n`) });
  printReport(report, formatConversationBenchReport);
});

