/// <reference lib="dom" />
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContextOptions, Page, Response } from 'playwright-core';
import { BENCH_EMAIL, BENCH_PASSWORD, startAppBenchServer } from './app-server.js';
import { positiveIntegerOption, printReport, runIfScript } from './report.js';

/*
 * The app's first screen (`npm run bench -- --only app`; issue 25: the JavaScript of the first screen under
 * 250 KB compressed, from navigation to the first screen usable under 1 s on loopback, in Chromium). The built
 * server (`npm start`'s) on a fresh SQLite file with an organization of `spaces` spaces, the built app, Debian's
 * Chromium through playwright-core. Two screens at `/`: signed out, the sign-in screen (usable when its
 * "Sign in" button is visible and enabled); signed in, the organizations screen (usable when the heading
 * "Your organizations" and the first space's link are visible).
 * - Weight: every JavaScript response that ended before the screen was usable, in a fresh context (empty cache),
 *   at its size on the wire when the server compressed it (Content-Encoding), else gzipped here at level 9.
 * - Time: `runs` times, a new context (empty cache) opens the screen ("cold"), then the same context opens it
 *   again ("warm", the hashed assets cached). Each time runs from just before `page.goto` (Node's clock) to the
 *   first animation frame after the DOM change that made the screen usable (the page's clock, stamped by a
 *   script the context injects); both clocks are the machine's wall clock with sub-millisecond resolution.
 * Each screen's timed runs follow untimed ones (WARM_UP_RUNS), which a fresh browser and server pay once.
 * Standalone: `node bench-dist/app-bench.js [--runs n] [--spaces n] [--json]`.
 */

export interface AppBenchOptions {
  runs?: number;
  spaces?: number;
  /** Untimed runs of each screen before its timed ones (default WARM_UP_RUNS). */
  warmUpRuns?: number;
  log?: (line: string) => void;
}

export interface ScriptWeight {
  url: string;
  bytes: number;
  /** Bytes counted: on the wire when `encoding` is set, else this bench's gzip (level 9) of `bytes`. */
  compressedBytes: number;
  /** The Content-Encoding the server sent, if any. */
  encoding: string | null;
}

export interface ScreenReport {
  name: string;
  scripts: ScriptWeight[];
  /** Sum of the scripts' compressed bytes. */
  compressedBytes: number;
  /** Whether the server compressed none of them (the figure is then this bench's gzip -9). */
  gzippedHere: boolean;
  coldMs: { median: number; p95: number; max: number };
  warmMs: { median: number; p95: number; max: number };
}

export interface AppBenchReport {
  runs: number;
  spaces: number;
  screens: ScreenReport[];
  goals: { scriptKb: number; usableMs: number };
}

const GOAL_SCRIPT_KB = 250;
const GOAL_USABLE_MS = 1000;
/** Untimed runs of each screen before its timed ones. */
const WARM_UP_RUNS = 3;

/*
 * Injected in every document of a context: watches the DOM and stamps, on the first animation frame after the
 * screen's main control is usable, the wall-clock time (timeOrigin + now). Written as a string so that the
 * compiler does not transform it (it runs in the page, not in Node).
 */
const USABLE_WATCHER = `(() => {
  const visible = (element) => !!element && element.checkVisibility() && element.getBoundingClientRect().width > 0;
  const conditions = {
    'sign-in': () => [...document.querySelectorAll('button')].some((button) => button.textContent.trim() === 'Sign in' && !button.disabled && visible(button)),
    organizations: () => [...document.querySelectorAll('h1')].some((heading) => heading.textContent.trim() === 'Your organizations' && visible(heading))
      && visible(document.querySelector('a.tree-space')),
  };
  const state = { usableAt: 0, screen: '' };
  window.__appBench = state;
  const check = () => {
    if (state.usableAt || state.pending) return;
    for (const [screen, usable] of Object.entries(conditions)) {
      if (!usable()) continue;
      state.pending = true;
      requestAnimationFrame(() => { state.usableAt = performance.timeOrigin + performance.now(); state.screen = screen; });
      observer.disconnect();
      return;
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
})();`;

interface Screen {
  name: string;
  /** The watcher's key for the screen. */
  key: 'sign-in' | 'organizations';
  signedIn: boolean;
}

const SCREENS: Screen[] = [
  { name: 'sign-in screen (/, signed out)', key: 'sign-in', signedIn: false },
  { name: 'organizations screen (/, signed in)', key: 'organizations', signedIn: true },
];

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function summary(times: number[]): { median: number; p95: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), max: round(sorted[sorted.length - 1]!) };
}

/** Opens `url` and answers the milliseconds from just before `page.goto` to the screen being usable. */
async function timeToUsable(page: Page, url: string, screen: Screen): Promise<number> {
  const started = performance.timeOrigin + performance.now();
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __appBench?: { usableAt: number } }).__appBench?.usableAt);
  const { usableAt, shown } = await page.evaluate(() => {
    const state = (window as unknown as { __appBench: { usableAt: number; screen: string } }).__appBench;
    return { usableAt: state.usableAt, shown: state.screen };
  });
  if (shown !== screen.key) throw new Error(`${url} showed the ${shown} screen, not the ${screen.key} screen`);
  return usableAt - started;
}

/** One run: a new context (empty cache) opens the screen, then opens it again (its assets cached). */
async function coldAndWarm(browser: Browser, contextOptions: BrowserContextOptions, url: string, screen: Screen): Promise<{ cold: number; warm: number }> {
  const context = await browser.newContext(contextOptions);
  try {
    await context.addInitScript(USABLE_WATCHER);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const cold = await timeToUsable(page, url, screen);
    return { cold, warm: await timeToUsable(page, url, screen) };
  } finally {
    await context.close();
  }
}

/** The JavaScript that ended loading before the screen was usable, in a fresh context, with its weight. */
async function firstScreenScripts(browser: Browser, contextOptions: BrowserContextOptions, url: string, screen: Screen): Promise<ScriptWeight[]> {
  const context = await browser.newContext(contextOptions);
  try {
    await context.addInitScript(USABLE_WATCHER);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const responses = new Map<string, Response>();
    page.on('response', (response) => responses.set(response.url(), response));
    await timeToUsable(page, url, screen);
    // The page's own record of what it fetched and when; lazy chunks asked for after the screen was usable are
    // not the first screen's.
    const loaded = await page.evaluate(() => {
      const usableAt = (window as unknown as { __appBench: { usableAt: number } }).__appBench.usableAt - performance.timeOrigin;
      return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((entry) => entry.responseEnd <= usableAt)
        .map((entry) => ({ url: entry.name, transferred: entry.encodedBodySize }));
    });
    const scripts: ScriptWeight[] = [];
    for (const entry of loaded) {
      const response = responses.get(entry.url);
      if (!response || !/javascript/.test(response.headers()['content-type'] ?? '')) continue;
      const body = await response.body();
      const encoding = response.headers()['content-encoding'] ?? null;
      const compressedBytes = encoding && encoding !== 'identity' ? entry.transferred : gzipSync(body, { level: 9 }).length;
      scripts.push({ url: new URL(entry.url).pathname, bytes: body.length, compressedBytes, encoding: encoding === 'identity' ? null : encoding });
    }
    if (scripts.length === 0) throw new Error(`${url} loaded no JavaScript before it was usable`);
    return scripts;
  } finally {
    await context.close();
  }
}

export async function runAppBench(options: AppBenchOptions = {}): Promise<AppBenchReport> {
  const log = options.log ?? (() => {});
  const runs = options.runs ?? 20;
  const spaceCount = options.spaces ?? 20;
  const warmUpRuns = options.warmUpRuns ?? WARM_UP_RUNS;
  const { base, owner, browser, api, close } = await startAppBenchServer('app');
  try {
    for (let index = 0; index < spaceCount; index++) await api('POST', `/orgs/${owner.organizationId}/spaces`, { title: `Space ${index + 1}` }, 201);

    // One browser session, signed in through the API (signIn) as the app would: its cookie is given to each
    // signed-in context, so every cold run starts with an empty cache but no second hash of the password.
    const signing = await browser.newContext();
    const signedIn = await signing.request.post(`${base}/v1/auth/sign-in`, { data: { email: BENCH_EMAIL, password: BENCH_PASSWORD }, headers: { origin: base } });
    if (signedIn.status() !== 200) throw new Error(`signIn answered ${signedIn.status()}: ${await signedIn.text()}`);
    const session = await signing.storageState();
    await signing.close();

    const screens: ScreenReport[] = [];
    for (const screen of SCREENS) {
      const contextOptions: BrowserContextOptions = { viewport: { width: 1280, height: 860 }, ...(screen.signedIn ? { storageState: session } : {}) };
      const scripts = await firstScreenScripts(browser, contextOptions, `${base}/`, screen);
      // Untimed runs first: the first contexts of a fresh browser, and the server's first answers (before its
      // code is compiled hot), took twice as long as the later ones whichever screen came first, and neither a
      // user's running browser nor a server that has been up for a while pays that.
      for (let run = 0; run < warmUpRuns; run++) await coldAndWarm(browser, contextOptions, `${base}/`, screen);
      log(`app bench: ${screen.name}: ${runs} cold and warm loads...`);
      const cold: number[] = [];
      const warm: number[] = [];
      for (let run = 0; run < runs; run++) {
        const times = await coldAndWarm(browser, contextOptions, `${base}/`, screen);
        cold.push(times.cold);
        warm.push(times.warm);
      }
      log(`app bench: ${screen.name}: cold (ms) ${cold.map((ms) => Math.round(ms)).join(' ')}; warm (ms) ${warm.map((ms) => Math.round(ms)).join(' ')}`);
      screens.push({
        name: screen.name,
        scripts,
        compressedBytes: scripts.reduce((sum, script) => sum + script.compressedBytes, 0),
        gzippedHere: scripts.every((script) => script.encoding === null),
        coldMs: summary(cold),
        warmMs: summary(warm),
      });
    }
    return { runs, spaces: spaceCount, screens, goals: { scriptKb: GOAL_SCRIPT_KB, usableMs: GOAL_USABLE_MS } };
  } finally {
    await close();
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

export function formatAppBenchReport(report: AppBenchReport): string {
  const lines = [`App first screens (Chromium on loopback, ${report.runs} cold and ${report.runs} warm loads each, an organization of ${report.spaces} spaces):`];
  for (const screen of report.screens) {
    const raw = screen.scripts.reduce((sum, script) => sum + script.bytes, 0);
    const how = screen.gzippedHere
      ? 'the server sends them uncompressed: gzip -9 here'
      : `as sent (${[...new Set(screen.scripts.map((script) => script.encoding ?? 'identity, gzip -9 here'))].join(', ')})`;
    lines.push(
      `  ${screen.name}:`,
      `    JavaScript before usable: ${screen.scripts.length} files, ${kb(raw)} KB raw, ${kb(screen.compressedBytes)} KB compressed, ${how} (goal: under ${report.goals.scriptKb} KB) ${verdict(screen.compressedBytes < report.goals.scriptKb * 1024)}`,
      `      ${screen.scripts.map((script) => `${script.url} ${kb(script.compressedBytes)} KB`).join(', ')}`,
      `    navigation to usable, cold: median ${screen.coldMs.median} ms, p95 ${screen.coldMs.p95} ms, slowest ${screen.coldMs.max} ms (goal: under ${report.goals.usableMs} ms) ${verdict(screen.coldMs.p95 < report.goals.usableMs)}`,
      `    navigation to usable, warm: median ${screen.warmMs.median} ms, p95 ${screen.warmMs.p95} ms, slowest ${screen.warmMs.max} ms (goal: under ${report.goals.usableMs} ms) ${verdict(screen.warmMs.p95 < report.goals.usableMs)}`,
    );
  }
  return lines.join('\n');
}

runIfScript(import.meta.url, 'app bench', async () => {
  const runs = positiveIntegerOption('runs');
  const spaces = positiveIntegerOption('spaces');
  printReport(await runAppBench({ ...(runs ? { runs } : {}), ...(spaces ? { spaces } : {}), log: (line) => process.stderr.write(`${line}\n`) }), formatAppBenchReport);
});
