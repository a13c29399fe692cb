import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../content/markdown/index.js';
import { embeddableImage, isDecodablePng } from './images.js';
import { allText, countPages, makePng, outlineTitles, pageTexts } from '../../test/support/pdf-fixtures.js';
import { renderPdf, type PdfPageInput } from './render.js';
import { toWinAnsi } from './win-ansi.js';

const RICH = `Some *italic*, **bold**, ~~struck~~ and \`inlineCode\`, a [web link](https://example.com/docs) and a
[link to the guide](/guide).\\
After a hard break.

## Lists

- first bullet
- second bullet
  - nested bullet
    - deeper bullet

3. third ordered
4. fourth ordered

- [ ] open task
- [x] finished task

> A wise quotation
> over two lines.

> [!WARNING]
> Mind the **gap**.

\`\`\`ts
const answer = 42;
function greet(name: string) { return name; }
\`\`\`

| Column A | Column B |
|:---------|---------:|
| cell one | cell two |
| **bold cell** | [cell link](https://example.org) |

---

![Architecture diagram](files/diagram.png "The architecture")

![Missing picture](files/missing.png)

Text after everything.
`;

function pages(): PdfPageInput[] {
  return [
    { id: 'page-intro', title: 'Getting Started', path: 'getting-started', document: markdownToDocument(RICH, { pagePath: 'getting-started', resolvePagePath: (path) => (path === 'guide' ? 'page-guide' : undefined) }) },
    { id: 'page-guide', title: 'The Guide', path: 'getting-started/guide', document: markdownToDocument('# Guide heading\n\nGuide body text.') },
    { id: 'page-faq', title: 'FAQ', path: 'faq', document: markdownToDocument('Frequently asked, rarely answered.') },
  ];
}

const diagram = makePng(64, 32, (x, y) => [x * 4, y * 8, 200]);

async function renderRich(): Promise<Buffer> {
  return renderPdf({
    title: 'Quire Handbook',
    subtitle: 'Change request #7',
    pages: pages(),
    images: (ref) => (ref.kind === 'url' && String(ref.url).endsWith('diagram.png') ? diagram : undefined),
    createdAt: new Date('2024-05-01T12:00:00Z'),
    compress: false,
  });
}

describe('renderPdf', () => {
  it('renders a rich document: pages, bookmarks, text of every block type, links and images', async () => {
    const pdf = await renderRich();
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    // Title page + one sheet per page (each is short).
    expect(countPages(pdf)).toBe(4);
    expect(outlineTitles(pdf).sort()).toEqual(['FAQ', 'Getting Started', 'The Guide']);

    const text = allText(pdf);
    for (const expected of [
      'Quire Handbook', 'Change request #7', '3 pages', '2024-05-01',
      'Getting Started', 'italic', 'bold', 'struck', 'inlineCode', 'web link', 'link to the guide', 'After a hard break',
      'Lists', 'first bullet', 'nested bullet', 'deeper bullet', '3.', 'third ordered', '4.', 'fourth ordered',
      'open task', 'finished task', 'A wise quotation', 'Warning', 'Mind the', 'gap',
      'const answer = 42;', 'function greet(name: string) { return name; }',
      'Column A', 'Column B', 'cell one', 'cell two', 'bold cell', 'cell link',
      'The architecture', '[Image: Missing picture]', 'Text after everything.',
      'Guide heading', 'Guide body text.', 'Frequently asked, rarely answered.',
    ]) {
      expect(text, expected).toContain(expected);
    }
    // Bullets by depth, in WinAnsi: bullet, en dash, middle dot.
    expect(text).toContain('\u2022 first bullet');
    expect(text).toContain('\u2013 nested bullet');
    expect(text).toContain('\xb7 deeper bullet');
    // Page numbers on every page but the title page.
    const texts = pageTexts(pdf);
    expect(texts[0]).not.toMatch(/\d \/ 4/);
    for (let page = 2; page <= 4; page++) expect(texts[page - 1]).toContain(`${page} / 4`);

    const raw = pdf.toString('latin1');
    // External links are URI annotations; the link to another page of the PDF jumps to it by name.
    expect(raw).toContain('/URI (https://example.com/docs)');
    expect(raw).toContain('/URI (https://example.org)');
    expect(raw).toMatch(/\/S \/GoTo\s+\/D \(page-2\)/);
    expect(raw).toMatch(/\/Dests/);
    // The one available PNG is embedded; the missing one is a placeholder.
    expect(raw.match(/\/Subtype \/Image/g)).toHaveLength(1);
    // Standard fonts only: nothing embedded.
    expect(raw).not.toContain('/FontFile');
    expect(raw).toContain('/BaseFont /Helvetica');
    expect(raw).toContain('/BaseFont /Courier');
  });

  it('nests bookmarks as the pages nest', async () => {
    const pdf = await renderRich();
    const raw = pdf.toString('latin1');
    const objectOf = (title: string): string => new RegExp(`(\\d+) 0 obj\\s*<<(?:(?!endobj)[^])*?/Title \\(${title}\\)`).exec(raw)![1]!;
    const parentOf = (title: string): string => new RegExp(`<<((?:(?!>>)[^])*?/Title \\(${title}\\)(?:(?!>>)[^])*)>>`).exec(raw)![1]!.match(/\/Parent (\d+) 0 R/)![1]!;
    expect(parentOf('The Guide')).toBe(objectOf('Getting Started'));
    expect(parentOf('FAQ')).toBe(parentOf('Getting Started'));
  });

  it('lays out a word of 100,000 characters in time proportional to its length, all of it, within the margins', async () => {
    // pdfkit breaks a word wider than the line by measuring ever longer prefixes of it: 12.8 s for this one.
    const word = (n: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const render = async (n: number): Promise<{ ms: number; pdf: Buffer }> => {
      const markdown = `Before ${word(n)} after.\n\n\`\`\`\n${word(n)}\n\`\`\`\n\n| a | b |\n|---|---|\n| ${word(Math.min(n, 2000))} | x |`;
      const started = performance.now();
      const pdf = await renderPdf({ title: 'Words', pages: [{ title: 'Word', path: 'word', document: markdownToDocument(markdown) }], compress: false });
      return { ms: performance.now() - started, pdf };
    };
    await render(1000);
    const small = await render(10_000);
    const large = await render(100_000);
    // Ten times the length: about ten times the time (the square would be a hundred times), with room for noise.
    expect(large.ms).toBeLessThan(Math.max(small.ms, 50) * 30);
    // Every character is there, in order (the word has no digits: the page numbers in the footers are dropped).
    const text = allText(large.pdf).replace(/\s+/g, '').replace(/\d+\/\d+/g, '');
    expect(text.includes(`Before${word(100_000)}after.`)).toBe(true);
    expect(text.split(word(100_000)).length - 1).toBe(2);
    const raw = large.pdf.toString('latin1');
    console.log(`PDF of a page with a word of 10,000 characters: ${small.ms.toFixed(0)} ms; 100,000: ${large.ms.toFixed(0)} ms`);
    const lefts = [...raw.matchAll(/1 0 0 1 ([\d.]+) [\d.]+ Tm/g)].map((match) => Number(match[1]));
    expect(Math.min(...lefts)).toBeGreaterThanOrEqual(56);
  }, 120_000);

  it('breaks long content over pages, keeping every page inside its margins', async () => {
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. '.repeat(5);
    const code = Array.from({ length: 120 }, (_, i) => `line ${i}`).join('\n');
    const table = `| Key | Value |\n|---|---|\n${Array.from({ length: 80 }, (_, i) => `| key ${i} | value ${i} |`).join('\n')}`;
    const markdown = [paragraph, '```\n' + code + '\n```', table, `> ${paragraph}\n>\n> ${paragraph}`, 'The end marker.'].join('\n\n');
    const pdf = await renderPdf({ title: 'Long', pages: [{ title: 'Long page', path: 'long', document: markdownToDocument(markdown) }], compress: false });
    const count = countPages(pdf);
    expect(count).toBeGreaterThan(4);
    const texts = pageTexts(pdf);
    expect(texts).toHaveLength(count);
    expect(texts[count - 1]).toContain('The end marker.');
    for (let page = 2; page <= count; page++) expect(texts[page - 1]).toContain(`${page} / ${count}`);
    // The table's header row repeats on the pages it continues on.
    expect(texts.filter((text) => /Key Value key \d+/.test(text)).length).toBeGreaterThan(1);
    // Every line of text is between the margins (A4 is 841.89 points tall; margins are 56; footers sit below).
    const raw = pdf.toString('latin1');
    const baselines = [...raw.matchAll(/1 0 0 1 [\d.]+ ([\d.]+) Tm/g)].map((match) => 841.89 - Number(match[1]));
    const body = baselines.filter((y) => y < 841.89 - 56);
    expect(Math.min(...body)).toBeGreaterThanOrEqual(56);
    expect(baselines.filter((y) => y >= 841.89 - 56)).toHaveLength(count - 1);
  });

  it('replaces text outside WinAnsi instead of failing or writing garbage', async () => {
    const markdown = 'Arrows \u2192 and \u2264, Polish \u0141\u00f3d\u017a, Hungarian \u0151, emoji \u{1F600}, Chinese \u4e2d\u6587, zero\u200bwidth, \u201cquotes\u201d \u2014 \u20ac5';
    const pdf = await renderPdf({ title: 'Unicode \u2713 \u{1F680}', pages: [{ title: 'Caf\u00e9 \u2192 Bar', path: 'x', document: markdownToDocument(markdown) }], compress: false });
    const text = allText(pdf);
    expect(text).toContain('Arrows -> and <=, Polish L\u00f3dz, Hungarian o, emoji ?, Chinese ??, zerowidth, \u201cquotes\u201d \u2014 \u20ac5');
    expect(text).toContain('Caf\u00e9 -> Bar');
    expect(text).toContain('Unicode v ?');
    // Bookmarks are not limited to WinAnsi: they keep the exact title.
    expect(outlineTitles(pdf)).toEqual(['Caf\u00e9 \u2192 Bar']);
  });

  it('gives the same bytes for the same input and date, and compresses by default', async () => {
    const input = { title: 'Same', pages: pages().slice(1), createdAt: new Date('2024-01-01T00:00:00Z') };
    const first = await renderPdf(input);
    const second = await renderPdf(input);
    expect(first.equals(second)).toBe(true);
    expect(first.toString('latin1')).toContain('/FlateDecode');
    expect(allText(first)).not.toContain('Guide body text.');
  });

  it('renders a space without pages as a title page alone', async () => {
    const pdf = await renderPdf({ title: 'Empty', pages: [], compress: false });
    expect(countPages(pdf)).toBe(1);
    expect(allText(pdf)).toContain('0 pages');
    const blank = await renderPdf({ title: 'Blank', pages: [{ title: 'Nothing', path: 'nothing', document: { object: 'document', data: { schemaVersion: 1 }, nodes: [] } }], compress: false });
    expect(countPages(blank)).toBe(2);
  });

  it('embeds PNG images with transparency and shows placeholders for images it cannot or must not embed', async () => {
    const alpha = makePng(10, 10, (x) => [255, 0, 0, x * 25], { alpha: true });
    const corrupt = makePng(10, 10, () => [0, 0, 0], { rawIdat: Buffer.from('definitely not zlib') });
    const badFilter = makePng(10, 10, () => [0, 0, 0, 255], { alpha: true, filter: 9 });
    const huge = makePng(1, 1, () => [0, 0, 0]);
    huge.writeUInt32BE(30_000, 16); // claims 30000 x 1 pixels: more than a side may have
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const sources: Record<string, Buffer> = { 'alpha.png': alpha, 'corrupt.png': corrupt, 'filter.png': badFilter, 'huge.png': huge, 'anim.gif': gif };
    const markdown = Object.keys(sources).map((name) => `![${name}](files/${name})`).join('\n\n') + '\n\n![thrown](files/throws.png)';
    const pdf = await renderPdf({
      title: 'Images',
      pages: [{ title: 'Images', path: 'images', document: markdownToDocument(markdown) }],
      images: (ref) => {
        const name = (ref.kind === 'url' ? ref.url : '').split('/').pop()!;
        if (name === 'throws.png') throw new Error('storage is down');
        return sources[name];
      },
      compress: false,
    });
    const raw = pdf.toString('latin1');
    // The RGBA image becomes an image plus its soft mask.
    expect(raw.match(/\/Subtype \/Image/g)).toHaveLength(2);
    expect(raw).toContain('/SMask');
    const text = allText(pdf);
    for (const name of ['corrupt.png', 'filter.png', 'huge.png', 'anim.gif', 'thrown']) expect(text).toContain(`[Image: ${name}]`);
    expect(text).not.toContain('[Image: alpha.png]');
  });

  it('reads the same text as poppler when pdftotext is installed', async (context) => {
    const which = spawnSync('which', ['pdftotext'], { encoding: 'utf8' });
    if (which.status !== 0) {
      console.warn('pdftotext (Debian poppler-utils) is not installed: skipping the check of the PDF with an independent reader');
      context.skip();
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'quire-pdf-'));
    try {
      const file = join(dir, 'rich.pdf');
      writeFileSync(file, await renderPdf({ title: 'Quire Handbook', pages: pages(), createdAt: new Date('2024-05-01T12:00:00Z') }));
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      for (const expected of ['Quire Handbook', 'Getting Started', 'first bullet', 'const answer = 42;', 'cell two', 'Guide body text.']) {
        expect(text).toContain(expected);
      }
      // The footer's "2 / 4": poppler's layout mode closes up words this close together ("2/4").
      expect(text).toMatch(/\b2 ?\/ ?4\b/);
      const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
      if (info.status === 0) expect(info.stdout).toMatch(/Pages:\s+4/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toWinAnsi', () => {
  it('keeps WinAnsi text, spells common symbols, drops invisible characters and replaces the rest', () => {
    expect(toWinAnsi('plain ASCII ~')).toBe('plain ASCII ~');
    expect(toWinAnsi('\u00e9\u00df\u00ff \u20ac \u2026 \u2122 \u0152')).toBe('\u00e9\u00df\u00ff \u20ac \u2026 \u2122 \u0152');
    expect(toWinAnsi('a\u2192b \u2260 c')).toBe('a->b != c');
    expect(toWinAnsi('\ufb01ne \uff21')).toBe('fine A');
    expect(toWinAnsi('\u0151 \u0142')).toBe('o l');
    expect(toWinAnsi('x\u200by\u200dz\u0007')).toBe('xyz');
    expect(toWinAnsi('tab\there\r\nnext')).toBe('tab    here\nnext');
    expect(toWinAnsi('\u{1F600}\u4e2d')).toBe('??');
  });
});

describe('embeddable images', () => {
  it('accepts well-formed PNGs and refuses what pdfkit would choke on', () => {
    expect(embeddableImage(makePng(3, 2, () => [1, 2, 3]))).toMatchObject({ format: 'png', width: 3, height: 2 });
    expect(isDecodablePng(makePng(3, 2, () => [1, 2, 3, 4], { alpha: true, filter: 4 }))).toBe(true);
    expect(isDecodablePng(makePng(3, 2, () => [1, 2, 3, 4], { alpha: true, filter: 5 }))).toBe(false);
    expect(isDecodablePng(makePng(3, 2, () => [1, 2, 3], { rawIdat: deflateSync(Buffer.alloc(2)).subarray(0, 4) }))).toBe(false);
    // A zlib bomb: far more data than the header's size allows.
    expect(isDecodablePng(makePng(2, 2, () => [0, 0, 0], { rawIdat: deflateSync(Buffer.alloc(10_000_000)) }))).toBe(false);
    expect(embeddableImage(Buffer.from('not an image'))).toBeUndefined();
  });
});
