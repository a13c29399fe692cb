import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type PrometheusContentType } from 'prom-client';

/*
 * What `/metrics` reports, in the Prometheus text format (prom-client): API requests by operationId and status
 * with their durations, the job queue by kind (read from the jobs table at scrape time), the database pool's
 * use, failures of the shared rate-limit store, and prom-client's default process metrics (CPU, memory, GC,
 * event-loop delay). Each server has a registry of its own (tests run several servers in one process).
 *
 * Under node:cluster each worker answers the primary's requests for its metrics, and the primary adds them up
 * (`clusterMetrics`): counters and histograms are summed; the job queue, which every worker reads from the same
 * table, is taken from one worker; the pool gauges are summed, since each worker has its own pool.
 */

/** One line of the job queue at scrape time: jobs of a kind in a status, and the oldest `run_at` among them. */
export interface JobQueueStat {
  kind: string;
  status: 'queued' | 'running';
  count: number;
  /** ISO time; for queued jobs the oldest due time, so now minus it is how long the oldest has waited. */
  oldestRunAt: string;
}

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** Where the gauges read at scrape time; each is optional (a SQLite install has no pool). */
export interface MetricsSources {
  jobQueue?: () => Promise<JobQueueStat[]>;
  pool?: () => PoolUse;
}

export interface Metrics {
  readonly registry: Registry;
  /** Counts one answered API request: its operationId (`unmatched` when no route matched) and status. */
  observeRequest(operationId: string, status: number, seconds: number): void;
  /** Counts one count that fell back to memory because the shared rate-limit store failed. */
  countLimiterStoreFailure(store: string): void;
  /** The Prometheus text of this process's metrics. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** Upper bounds (seconds) of the duration buckets: API answers take from under a millisecond to a few seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'API requests by operationId and HTTP status, and how long their answers took',
    labelNames: ['operationId', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const limiterFailures = new Counter({
    name: 'quire_rate_limit_store_failures_total',
    help: 'Counts that fell back to this process\'s memory because the shared rate-limit store failed',
    labelNames: ['store'] as const,
    registers: [registry],
  });

  if (sources.jobQueue) {
    const readQueue = sources.jobQueue;
    // Both gauges come from one read of the table per scrape: the first to collect reads, the other reuses it.
    let pending: Promise<JobQueueStat[]> | undefined;
    const queue = () => (pending ??= readQueue().finally(() => setImmediate(() => { pending = undefined; })));
    new Gauge({
      name: 'quire_jobs',
      help: 'Background jobs waiting (queued) or running, by kind',
      labelNames: ['kind', 'status'] as const,
      registers: [registry],
      // Every worker of a cluster reads the same table.
      aggregator: 'first',
      async collect() {
        this.reset();
        for (const stat of await queue()) this.set({ kind: stat.kind, status: stat.status }, stat.count);
      },
    });
    new Gauge({
      name: 'quire_jobs_oldest_age_seconds',
      help: 'How long the oldest queued job of each kind has been due, in seconds',
      labelNames: ['kind'] as const,
      registers: [registry],
      aggregator: 'first',
      async collect() {
        this.reset();
        const now = Date.now();
        for (const stat of await queue()) {
          if (stat.status === 'queued') this.set({ kind: stat.kind }, Math.max(0, (now - Date.parse(stat.oldestRunAt)) / 1000));
        }
      },
    });
  }

  if (sources.pool) {
    const readPool = sources.pool;
    new Gauge({
      name: 'quire_db_pool_connections',
      help: 'PostgreSQL pool connections of this process: open (total), idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const use = readPool();
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  if (cluster.isWorker) answerClusterPrimary(registry);

  return {
    registry,
    observeRequest: (operationId, status, seconds) => requests.observe({ operationId, status: String(status) }, seconds),
    countLimiterStoreFailure: (store) => limiterFailures.inc({ store }),
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/**
 * In a node:cluster worker: answers the primary's requests for metrics (`clusterMetrics`) with this registry's.
 * prom-client listens for them once an AggregatorRegistry exists in the process.
 */
function answerClusterPrimary(registry: Registry): void {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/**
 * In the node:cluster primary: every worker's metrics, added up, as Prometheus text. The primary serves them
 * (`QUIRE_METRICS_PORT`), since a request to the shared API port reaches one worker only.
 */
export async function clusterMetrics(): Promise<{ contentType: string; text: string }> {
  const aggregator = primaryAggregator ??= new AggregatorRegistry();
  return { contentType: aggregator.contentType, text: await aggregator.clusterMetrics() };
}

let primaryAggregator: AggregatorRegistry<PrometheusContentType> | undefined;
