import { describeCluster, groupBatch, type BatchInput, type BatchOutput, type ClusterDescription } from './clustering.js';

/*
 * The worker-thread side of analysis-pool.ts: the CPU-heavy, pure part of the analysis (parsing bodies,
 * finding issues, grouping them), run where it cannot stall the requests the server is answering.
 */

export type AnalysisTask =
  | { kind: 'group'; input: BatchInput }
  | { kind: 'describe'; clusters: Array<ReadonlyArray<{ title: string; summary: string; terms: Record<string, number> }>> };

export type AnalysisResult = BatchOutput | ClusterDescription[];

export default function runAnalysisTask(task: AnalysisTask): AnalysisResult {
  if (task.kind === 'group') return groupBatch(task.input);
  return task.clusters.map((issues) => describeCluster(issues));
}
