/// <reference lib="dom" />
import { BENCH_EMAIL, BENCH_PASSWORD, startAppBenchServer } from './app-server.js';
import { positiveIntegerOption, printReport, runIfScript } from './report.js';

/*
 * The editor's preview while typing (`npm run bench -- --only editor`; issue 25: each keystroke's preview under
 * 50 ms in a 2,000-line page). The built server (`npm start`'s) on a fresh SQLite file, the built app, Debian's
 * Chromium through playwright-core: a writer signs in, opens a change request's page of 2,000 lines (prose,
 * lists, code, tables and a hint, in sections under headings, as long manuals are written) and types
 * `keystrokes` characters, one at a time, at a reading pace, in the middle of the page. Each keystroke is
 * timed in the browser's own clock from its keydown to the moment the preview's DOM has changed (the
 * rendered Markdown committed): median, p95 and slowest. Also timed: the first preview of the whole page.
 * Standalone: `node bench-dist/editor-bench.js [--lines n] [--keystrokes n] [--json]`.
 */

export interface EditorBenchOptions {
  lines?: number;
  keystrokes?: number;
  log?: (line: string) => void;
}

export interface EditorBenchReport {
  lines: number;
  keystrokes: number;
  firstPreviewMs: number;
  keystrokeMs: { median: number; p95: number; max: number };
  goalMs: number;
}

/** A page of `lines` lines: sections of about 20 lines under headings, as a long manual is written. */
export function longPage(lines: number): string {
  const out: string[] = [];
  for (let section = 1; out.length < lines; section++) {
    out.push(`## Section ${section}: configuring part ${section}`, '');
    out.push(`Part ${section} is configured in its own file. Each setting has a **default** and a [reference](https://example.com/${section}), and \`quire\` reads it at start.`, '');
    out.push('- the first setting, with *emphasis*', '- the second setting', '- the third setting, `inline code`', '');
    out.push('```yaml', `part: ${section}`, 'enabled: true', '```', '');
    out.push('| Setting | Default |', '| --- | --- |', `| size | ${section * 10} |`, '');
    if (section % 5 === 0) out.push('{% hint style="info" %}', 'Restart after changing this part.', '{% endhint %}', '');
  }
  return out.slice(0, lines).join('\n') + '\n';
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export async function runEditorBench(options: EditorBenchOptions = {}): Promise<EditorBenchReport> {
  const log = options.log ?? (() => {});
  const lines = options.lines ?? 2000;
  const keystrokes = options.keystrokes ?? 50;
  const { base, owner, browser, api, close } = await startAppBenchServer('editor');
  try {
    const space = await api('POST', `/orgs/${owner.organizationId}/spaces`, { title: 'Manual' }, 201);
    const changeRequest = await api('POST', `/spaces/${space.id as string}/change-requests`, {}, 201);
    await api('POST', `/spaces/${space.id as string}/change-requests/${changeRequest.id as string}/content`, { changes: [{ operation: 'insert_page', title: 'Configuration', document: { markdown: longPage(lines) } }] }, 200);

    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(BENCH_EMAIL);
    await page.getByLabel('Password').fill(BENCH_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your organizations' }).waitFor();

    // The first preview: from opening the page's address to the whole page rendered.
    const opened = performance.now();
    await page.goto(`${base}${new URL((changeRequest.urls as { app: string }).app).pathname}`);
    await page.getByRole('article', { name: 'Preview of Configuration' }).getByRole('heading', { name: /Section 1:/ }).waitFor();
    const firstPreviewMs = performance.now() - opened;

    const editor = page.getByRole('textbox', { name: 'Page content' });
    await editor.click({ position: { x: 200, y: 120 } });
    await page.keyboard.press('End');
    // Every keydown stamps the time; the first change of the preview after it closes the measure.
    await page.evaluate(() => {
      const state = { started: 0, times: [] as number[] };
      (window as unknown as { __editorBench: typeof state }).__editorBench = state;
      const article = document.querySelector('article.page-content')!;
      window.addEventListener('keydown', () => (state.started = performance.now()), { capture: true });
      new MutationObserver(() => {
        if (state.started === 0) return;
        state.times.push(performance.now() - state.started);
        state.started = 0;
      }).observe(article, { childList: true, subtree: true, characterData: true });
    });
    log(`editor bench: typing ${keystrokes} characters in a page of ${lines} lines...`);
    for (let index = 0; index < keystrokes; index++) {
      await page.keyboard.press(index % 6 === 5 ? 'Space' : 'KeyK');
      await page.waitForFunction((count) => (window as unknown as { __editorBench: { times: number[] } }).__editorBench.times.length > count, index);
      // A reading pace between keystrokes (about 8 characters a second), so each is measured on its own.
      await page.waitForTimeout(120);
    }
    const times = await page.evaluate(() => (window as unknown as { __editorBench: { times: number[] } }).__editorBench.times);
    const sorted = [...times].sort((a, b) => a - b);
    log(`editor bench: keystrokes in order (ms): ${times.map((ms) => Math.round(ms)).join(" ")}`);
    return {
      lines,
      keystrokes,
      firstPreviewMs: Math.round(firstPreviewMs),
      keystrokeMs: { median: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), max: round(sorted[sorted.length - 1]!) },
      goalMs: 50,
    };
  } finally {
    await close();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export function formatEditorBenchReport(report: EditorBenchReport): string {
  const { median, p95, max } = report.keystrokeMs;
  return [
    `Editor preview (Chromium, a page of ${report.lines} lines, ${report.keystrokes} keystrokes):`,
    `  keystroke to preview: median ${median} ms, p95 ${p95} ms, slowest ${max} ms (goal: under ${report.goalMs} ms) ${p95 < report.goalMs ? 'ok' : 'OVER'}`,
    `  first preview of the page (open to rendered): ${report.firstPreviewMs} ms`,
  ].join('\n');
}

runIfScript(import.meta.url, 'editor bench', async () => {
  const lines = positiveIntegerOption('lines');
  const keystrokes = positiveIntegerOption('keystrokes');
  printReport(await runEditorBench({ ...(lines ? { lines } : {}), ...(keystrokes ? { keystrokes } : {}), log: (line) => process.stderr.write(`${line}\n`) }), formatEditorBenchReport);
});
