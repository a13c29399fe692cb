import { closePdfPool, MAX_PDF_MARKDOWN_LENGTH, renderPdfOffThread } from '#server/pdf/pdf-pool.js';
import type { PdfTaskPage } from '#server/pdf/pdf-worker.js';
import { printReport, runIfScript } from './report.js';

/*
 * The PDF of the largest change request getChangeRequestPDF accepts: MAX_PDF_MARKDOWN_LENGTH characters of
 * markdown (the bound on the work of one request, stated in the contract), laid out in the PDF worker thread
 * as the operation does, as one page at the limit and as 100 pages sharing it. Each is rendered twice: the
 * first time includes starting the worker thread and loading pdfkit and its fonts.
 * Standalone: `node dist/bench/pdf-bench.js [--json]`.
 */

export interface PdfMeasure {
  name: string;
  pages: number;
  characters: number;
  firstMs: number;
  againMs: number;
  pdfBytes: number;
}

export interface PdfBenchReport {
  limit: number;
  measures: PdfMeasure[];
}

/** Markdown of exactly `length` characters: headings, paragraphs with inline formatting, lists and code. */
function prose(length: number, seed: number): string {
  const blocks: string[] = [];
  let size = 0;
  for (let index = 0; size < length; index += 1) {
    const block = index % 10 === 0
      ? `## Section ${seed}.${index}`
      : index % 7 === 0
        ? `- an item with \`code\`\n- another item, **bold**\n- a [link](https://example.com/${index})`
        : `Paragraph ${index} explains one step of the procedure in plain words, with *emphasis*, **strong text** and \`inline code\`, then goes on for a while as real pages do.`;
    blocks.push(block);
    size += block.length + 2;
  }
  return blocks.join('\n\n').slice(0, length);
}

async function measure(name: string, pages: PdfTaskPage[]): Promise<PdfMeasure> {
  const task = { title: `Bench: ${name}`, subtitle: 'PDF bench', createdAt: '2026-01-01T00:00:00.000Z', pages, files: {} };
  const time = async () => {
    const started = performance.now();
    const bytes = await renderPdfOffThread(task);
    return { ms: Math.round(performance.now() - started), bytes: bytes.byteLength };
  };
  const first = await time();
  const again = await time();
  return { name, pages: pages.length, characters: pages.reduce((sum, page) => sum + page.markdown.length, 0), firstMs: first.ms, againMs: again.ms, pdfBytes: again.bytes };
}

export async function runPdfBench(options: { log?: (line: string) => void } = {}): Promise<PdfBenchReport> {
  const log = options.log ?? (() => {});
  const page = (index: number, length: number): PdfTaskPage => ({ id: `page${index}`, title: `Page ${index}`, path: `page-${index}`, markdown: prose(length, index) });
  try {
    log(`pdf bench: one page of ${MAX_PDF_MARKDOWN_LENGTH.toLocaleString('en-US')} characters...`);
    const one = await measure('one page at the limit', [page(0, MAX_PDF_MARKDOWN_LENGTH)]);
    log('pdf bench: 100 pages sharing the limit...');
    const hundred = await measure('100 pages at the limit', Array.from({ length: 100 }, (_, index) => page(index, MAX_PDF_MARKDOWN_LENGTH / 100)));
    return { limit: MAX_PDF_MARKDOWN_LENGTH, measures: [one, hundred] };
  } finally {
    await closePdfPool();
  }
}

export function formatPdfBenchReport(report: PdfBenchReport): string {
  return [
    `pdf: rendering the largest change request getChangeRequestPDF accepts (${report.limit.toLocaleString('en-US')} characters of markdown) in the PDF worker thread`,
    ...report.measures.map((m) => `${m.name.padEnd(24)} ${m.pages} pages, ${m.characters.toLocaleString('en-US')} characters: first ${m.firstMs} ms (worker start included), again ${m.againMs} ms; ${(m.pdfBytes / 1024 / 1024).toFixed(1)} MB of PDF`),
  ].join('\n');
}

runIfScript(import.meta.url, 'pdf-bench', async () => {
  const report = await runPdfBench({ log: (line) => process.stderr.write(`${line}\n`) });
  printReport(report, formatPdfBenchReport);
});
