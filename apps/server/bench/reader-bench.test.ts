import { describe, expect, it } from 'vitest';
import { processCpuMs } from './processes.js';
import { formatReaderBenchReport, READER_GOALS, type ReaderBenchReport } from './reader-bench.js';

const round = (requestsPerSecond: number) => ({ requestsPerSecond, requests: requestsPerSecond * 5, p50Ms: 1, p99Ms: 5, non2xx: 0, errors: 0 });

/** A report as runReaderBench makes it, with the figures the goals are judged on. */
function report(firstRenderP99Ms: number, ratio: number, dialect: ReaderBenchReport['dialect'] = 'postgres'): ReaderBenchReport {
  return {
    dialect,
    pages: 1000,
    importMs: 10_000,
    typicalPage: '/sites/x/section-1/chapter-5/page-5',
    weight: { htmlBytes: 6_000, cssBytes: 14_000, jsBytes: 10_000, totalBytes: 30_000 },
    firstRender: { pages: 999, p50Ms: 5, p99Ms: firstRenderP99Ms, maxMs: 90, non200: 0, cpuMsPerPage: 4.2 },
    cached: {
      ...round(10_000 * ratio), bare: round(10_000), ratio,
      cpuUsPerRequest: { reader: 25, bare: 15 },
      rounds: [{ reader: round(10_000 * ratio), bare: round(10_000), ratio, cpuUsPerRequest: { reader: 25, bare: 15 } }],
    },
    durationSeconds: 5,
    connections: 50,
  };
}

describe('reader bench report', () => {
  it('judges issue 27\'s goals: first-render p99 under 50 ms and a cached page at least 0.7 of a bare server', () => {
    expect(READER_GOALS).toMatchObject({ firstRenderP99Ms: 50, cachedRatio: 0.7 });
    const met = formatReaderBenchReport(report(49.9, 0.7));
    expect(met).toContain('reader on postgres');
    expect(met).not.toContain('GOAL MISSED');
    expect(met).toContain('server CPU 4.2 ms a page');
    expect(met).toContain('server CPU per answer, median of the rounds: reader 25.0 µs, bare 15.0 µs');
    const missed = formatReaderBenchReport(report(50, 0.69, 'sqlite')).split('\n');
    expect(missed[0]).toContain('reader on sqlite');
    expect(missed.find((line) => line.startsWith('first render'))).toContain('GOAL MISSED');
    expect(missed.find((line) => line.startsWith('cached page'))).toContain('(goal >= 0.7: GOAL MISSED)');
  });
});

describe('processCpuMs', () => {
  it.runIf(process.platform === 'linux')('reads the CPU time a process has used, which grows as it works', () => {
    const before = processCpuMs(process.pid)!;
    expect(before).toBeGreaterThan(0);
    // Busy for 100 ms of wall time: at least one tick (10 ms) of CPU, however loaded the machine.
    const until = Date.now() + 100;
    let spins = 0;
    while (Date.now() < until || processCpuMs(process.pid)! <= before) spins++;
    expect(spins).toBeGreaterThan(0);
    expect(processCpuMs(process.pid)!).toBeGreaterThan(before);
  });

  it('answers undefined for no process, or one that is not there', () => {
    expect(processCpuMs(undefined)).toBeUndefined();
    expect(processCpuMs(2 ** 30)).toBeUndefined();
  });
});
