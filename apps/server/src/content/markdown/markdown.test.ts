import { describe, expect, it } from 'vitest';
import {
  classifyUrl,
  documentToMarkdown,
  extractReferences,
  extractSections,
  findLinkDestinations,
  headingAnchor,
  markdownToDocument,
  parseMarkdown,
  plainText,
  rewriteLinks,
  tableGrid,
  type DocBlock,
  type DocInline,
  type DocNode,
  type DocText,
} from './index.js';
import { MARKDOWN_SAMPLES } from '../../../test/markdown-corpus.js';

/** Every kind of block and inline, with links and files: the first sample of the content tests' corpus. */
const RICH = MARKDOWN_SAMPLES[0]!;

function blocks(nodes: readonly DocNode[]): DocBlock[] {
  return nodes.filter((node): node is DocBlock => node.object === 'block');
}

/** A node's `data`, read without narrowing to its type (the tests compare it whole). */
function dataOf(node: DocNode | undefined): Record<string, unknown> | undefined {
  return node && 'data' in node ? (node.data as Record<string, unknown> | undefined) : undefined;
}

function allNodes(nodes: readonly DocNode[]): DocNode[] {
  return nodes.flatMap((node) => [node, ...(node.object === 'text' ? [] : allNodes(node.nodes))]);
}

describe('markdownToDocument', () => {
  const doc = markdownToDocument(RICH, { pagePath: 'guides/intro' });
  const top = doc.nodes;

  it('is a contract document with a schema version', () => {
    expect(doc.object).toBe('document');
    expect(doc.data.schemaVersion).toBe(1);
  });

  it('maps each markdown block to its block type', () => {
    expect(top.map((node) => node.type)).toEqual([
      'heading-1',
      'paragraph',
      'heading-2',
      'list-tasks',
      'list-ordered',
      'blockquote',
      'hint',
      'hint',
      'table',
      'images',
      'paragraph',
      'paragraph',
      'footnote',
      'html',
      'divider',
      'code',
    ]);
  });

  it('turns emphasis into marks on text leaves, and links and breaks into inlines', () => {
    const paragraph = top[1]!;
    const first = paragraph.nodes[0] as DocText;
    expect(first.leaves.map((leaf) => [leaf.text, leaf.marks.map((mark) => mark.type)])).toEqual([
      ['Some ', []],
      ['italic', ['italic']],
      [', ', []],
      ['bold', ['bold']],
      [', ', []],
      ['gone', ['strikethrough']],
      [' and ', []],
      ['code', ['code']],
      [', a ', []],
    ]);
    const link = paragraph.nodes[1] as DocInline;
    expect(link).toMatchObject({
      object: 'inline',
      type: 'link',
      data: { href: 'https://example.com', ref: { kind: 'url', url: 'https://example.com' }, title: 'Example' },
    });
    expect(plainText(link)).toBe('link');
    const autolink = paragraph.nodes[3] as DocInline;
    expect(dataOf(autolink)).toMatchObject({ href: 'https://auto.example.org' });
    expect(paragraph.nodes.some((node) => node.object === 'inline' && node.type === 'break')).toBe(true);
  });

  it('keeps task state, list numbering and nesting', () => {
    const tasks = top[3]!;
    expect(tasks.nodes.map((item) => dataOf(item)?.checked)).toEqual([false, true]);
    const ordered = top[4]!;
    const second = ordered.nodes[1] as DocBlock;
    expect(second.type).toBe('list-item');
    expect(blocks(second.nodes).map((node) => node.type)).toEqual(['paragraph', 'list-unordered']);
    expect(plainText(blocks(second.nodes)[1]!)).toBe('nested itemanother');
  });

  it('reads GitHub alerts and GitBook hints as hints', () => {
    expect(top[5]!.type).toBe('blockquote');
    expect(top[6]).toMatchObject({ type: 'hint', data: { style: 'warning', alert: 'WARNING' } });
    expect(plainText(top[6]!)).toBe('Mind the gap.');
    expect(top[7]).toMatchObject({ type: 'hint', data: { style: 'success' } });
    expect(plainText(top[7]!)).toBe('All good.');
  });

  it('reads tables as void table blocks: columns with their alignments, and rows of cells in fragments', () => {
    const table = top[8]!;
    if (table.type !== 'table') throw new Error('not a table');
    const grid = tableGrid(table);
    expect(grid.aligns).toEqual(['left', 'right']);
    expect(grid.rows.map((row) => row.map((cell) => plainText(cell)))).toEqual([
      ['Name', 'Size'],
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(((grid.rows[2]![0]!.nodes[0] as DocText).leaves[0]!.marks[0]!.type)).toBe('bold');
    expect(plainText(table)).toBe('Name Size\na 1\nb 2');
  });

  it('reads a hard line break as a new line in plain text (the PDF lays code and cells out from it)', () => {
    expect(plainText(markdownToDocument('one  \ntwo\\\nthree').nodes[0]!)).toBe('one\ntwo\nthree');
  });

  it('reads a paragraph of images as an images block, with file references where known', () => {
    const images = top[9]!;
    expect(images.nodes).toHaveLength(2);
    expect(images.nodes[0]).toMatchObject({
      type: 'image',
      isVoid: true,
      data: { src: '.gitbook/assets/diagram.png', alt: 'Diagram', title: 'The diagram' },
    });
    expect(dataOf(images.nodes[1])).toMatchObject({ ref: { kind: 'file', file: 'f123' } });
  });

  it('resolves page links, reference-style links and inline images', () => {
    const links = allNodes(top[10]!.nodes).filter((node): node is DocInline => node.object === 'inline');
    expect(links.map((node) => [node.type, dataOf(node)?.ref])).toEqual([
      ['link', { kind: 'url', url: '../setup.md#install' }],
      ['link', { kind: 'page', page: 'p42' }],
      ['link', { kind: 'url', url: 'https://docs.example.com' }],
      ['inline-image', { kind: 'url', url: 'icon.svg' }],
    ]);
    const resolved = markdownToDocument('[s](../setup.md#install)', {
      pagePath: 'guides/intro',
      resolvePagePath: (path) => (path === 'setup' ? 'page-setup' : undefined),
    });
    expect(dataOf(resolved.nodes[0]!.nodes[0])?.ref).toEqual({ kind: 'page', page: 'page-setup', anchor: 'install' });
  });

  it('keeps code as lines with the syntax, and raw html and footnotes', () => {
    const code = top[15]!;
    expect(dataOf(code)).toEqual({ syntax: 'ts', meta: 'title="x.ts"' });
    expect(code.nodes.map((line) => [(line as DocBlock).type, plainText(line)])).toEqual([
      ['code-line', 'const a = 1;'],
      ['code-line', ''],
      ['code-line', 'console.log(a);'],
    ]);
    expect(top[13]).toMatchObject({ type: 'html', isVoid: true, data: { html: '<details>raw html</details>' } });
    expect(top[12]).toMatchObject({ type: 'footnote', data: { identifier: 'note' } });
  });

  it('gives every node a unique key made from its position, stable when later content changes', () => {
    const keys = allNodes(top).map((node) => node.key);
    expect(keys.every((key) => typeof key === 'string' && key.length > 0 && key.length <= 128)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    expect(top[4]!.key).toBe('4');
    expect((top[4]!.nodes[1] as DocBlock).key).toBe('4.1');

    const edited = markdownToDocument(RICH.replace('console.log(a);', 'console.log(b);\nmore();'));
    const editedKeys = allNodes(edited.nodes.slice(0, 15)).map((node) => node.key);
    expect(editedKeys).toEqual(allNodes(top.slice(0, 15)).map((node) => node.key));
  });

  it('keeps keys within 128 characters however deep the nesting', () => {
    // Lists as deep as the limits allow: a list and its item per level, so keys of 130 characters and more.
    const deep = markdownToDocument(Array.from({ length: 32 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n'));
    expect(allNodes(deep.nodes).some((node) => node.key!.startsWith('h'))).toBe(true);
    const keys = allNodes(deep.nodes).map((node) => node.key!);
    expect(Math.max(...keys.map((key) => key.length))).toBeLessThanOrEqual(128);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses markdown past the content limits (stored before they existed) naming the limit, before parsing it', () => {
    expect(() => markdownToDocument(`${'>'.repeat(5000)} deep`, { what: "the page's markdown" })).toThrow(
      "the page's markdown nests quotes and lists up to 5000 levels deep; the limit is 32 levels",
    );
  });

  it('leaves an unclosed GitBook hint as the text it is', () => {
    const doc2 = markdownToDocument('{% hint style="info" %}\n\nNever closed.\n');
    expect(doc2.nodes.map((node) => node.type)).toEqual(['paragraph', 'paragraph']);
    expect(plainText(doc2.nodes[0]!)).toBe('{% hint style="info" %}');
  });
});

describe('GitBook tabs', () => {
  const TABS = MARKDOWN_SAMPLES.find((sample) => sample.startsWith('{% tabs %}'))!;

  it('reads tabs as a tabs block of titled tabs-item blocks, keeping the blocks nested in each tab', () => {
    const document = markdownToDocument(TABS);
    expect(document.nodes.map((node) => node.type)).toEqual(['tabs']);
    const tabs = document.nodes[0]!;
    expect(tabs).toMatchObject({ object: 'block', type: 'tabs', nodes: [{ type: 'tabs-item', data: { title: 'npm' } }, { type: 'tabs-item', data: { title: 'Yarn & "pnpm"' } }] });
    const [npm, yarn] = tabs.nodes as DocBlock[];
    expect(blocks(npm!.nodes).map((node) => node.type)).toEqual(['paragraph', 'hint']);
    expect(dataOf(npm!.nodes[1])).toEqual({ style: 'info' });
    expect(plainText(npm!.nodes[0]!)).toBe('npm install quire');
    expect(blocks(yarn!.nodes).map((node) => node.type)).toEqual(['list-unordered', 'code']);
    expect(dataOf(yarn!.nodes[1])).toEqual({ syntax: 'sh' });
  });

  it('writes tabs back as GitBook tags, titles escaped so that they read back as written', () => {
    const markdown = documentToMarkdown(markdownToDocument(TABS));
    expect(markdown).toBe(
      [
        '{% tabs %}',
        '',
        '{% tab title="npm" %}',
        '',
        'npm install *quire*',
        '',
        '{% hint style="info" %}',
        '',
        'Needs Node 20.',
        '',
        '{% endhint %}',
        '',
        '{% endtab %}',
        '',
        '{% tab title="Yarn \\& "pnpm"" %}',
        '',
        '- one',
        '- two',
        '',
        '```sh',
        'yarn add quire',
        '```',
        '',
        '{% endtab %}',
        '',
        '{% endtabs %}',
        '',
      ].join('\n'),
    );
    expect(markdownToDocument(markdown)).toEqual(markdownToDocument(TABS));
    const title = 'a *b* <c> [d](e) `f` \\ %} {% endtab %}';
    const written = documentToMarkdown({
      nodes: [{ object: 'block', type: 'tabs', nodes: [{ object: 'block', type: 'tabs-item', data: { title }, nodes: [] }] }] as never,
    });
    expect(markdownToDocument(written).nodes[0]).toMatchObject({ type: 'tabs', nodes: [{ type: 'tabs-item', data: { title }, nodes: [] }] });
  });

  it('leaves tags that make no tabs block as the text they are', () => {
    const malformed = [
      '{% tabs %}\n{% tab title="a" %}\nNever closed.\n{% endtab %}\n',
      '{% tabs %}\n{% tab title="a" %}\nA\n{% endtab %}\nBetween tabs.\n{% tab title="b" %}\nB\n{% endtab %}\n{% endtabs %}\n',
      '{% tabs %}\n{% tab title="a" %}\n{% tabs %}\n{% tab title="in" %}\nA\n{% endtab %}\n{% endtabs %}\n{% endtab %}\n{% endtabs %}\n',
      '{% tabs %}\n{% endtabs %}\n',
      '{% tabs %}\n{% tab title="*styled*" %}\nA\n{% endtab %}\n{% endtabs %}\n',
      'Text first\n{% tabs %}\n{% tab title="a" %}\nA\n{% endtab %}\n{% endtabs %}\n',
    ];
    for (const markdown of malformed) {
      const document = markdownToDocument(markdown);
      expect(allNodes(document.nodes).some((node) => node.object === 'block' && (node.type === 'tabs' || node.type === 'tabs-item')), markdown).toBe(false);
      expect(document.nodes.map((node) => plainText(node)).join('\n').replace(/\s+/g, ''), markdown).toBe(markdown.replace(/[*\s]/g, '').replace(/\*/g, ''));
    }
    // A tabs block closed with text after the closing tag keeps that text as a paragraph after the block.
    const after = markdownToDocument('{% tabs %}\n{% tab title="a" %}\nA\n{% endtab %}\n{% endtabs %}\nAfter.\n');
    expect(after.nodes.map((node) => node.type)).toEqual(['tabs', 'paragraph']);
    expect(plainText(after.nodes[1]!)).toBe('After.');
  });

  it('takes the closing tags back from a list or quote that ends a tab without a blank line (lazy lines)', () => {
    const document = markdownToDocument('{% tabs %}\n{% tab title="a" %}\n- one\n- two\n{% endtab %}\n{% tab title="b" %}\n> quoted\n{% endtab %}\n{% endtabs %}\n');
    expect(document.nodes).toMatchObject([{ type: 'tabs', nodes: [{ type: 'tabs-item', nodes: [{ type: 'list-unordered' }] }, { type: 'tabs-item', nodes: [{ type: 'blockquote' }] }] }]);
    expect(plainText(document.nodes[0]!)).toBe('onetwoquoted');
    expect(markdownToDocument(documentToMarkdown(document))).toEqual(document);
    // A tag amid a list's text is the list's text.
    expect(markdownToDocument('{% tabs %}\n{% tab title="a" %}\n- one\n{% endtab %}\nmore\n{% endtabs %}\n').nodes.map((node) => node.type)).toEqual(['paragraph', 'list-unordered']);
  });

  it('writes tabs that markdown cannot hold where they stand (in a list, in a tab) as their content', () => {
    const tab = (title: string, text: string) => ({
      object: 'block',
      type: 'tabs-item',
      data: { title },
      nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
    });
    const nested = { object: 'block', type: 'tabs', nodes: [tab('in', 'inner')] };
    const markdown = documentToMarkdown({
      nodes: [
        { object: 'block', type: 'list-unordered', nodes: [{ object: 'block', type: 'list-item', nodes: [nested] }] },
        { object: 'block', type: 'tabs', nodes: [{ ...tab('out', 'outer'), nodes: [...tab('out', 'outer').nodes, nested] }] },
        { object: 'block', type: 'tabs', nodes: [] },
      ] as never,
    });
    expect(markdown).toBe('- inner\n\n{% tabs %}\n\n{% tab title="out" %}\n\nouter\n\ninner\n\n{% endtab %}\n\n{% endtabs %}\n');
  });

  it('indexes every tab for search, titles and contents', () => {
    const sections = extractSections(`# Install\n\n${TABS}`);
    expect(sections).toHaveLength(1);
    expect(sections[0]!.body).toContain('Yarn & "pnpm"');
    expect(sections[0]!.body).toContain('yarn add quire');
    expect(sections[0]!.body).toContain('Needs Node 20.');
  });

  it('holds the content of tabs to the content limits', () => {
    const deep = `{% tabs %}\n{% tab title="a" %}\n${'> '.repeat(40)}deep\n{% endtab %}\n{% endtabs %}\n`;
    expect(() => markdownToDocument(deep)).toThrow(/nests quotes and lists up to \d+ levels deep/);
  });
});

describe('documentToMarkdown', () => {
  it('round-trips what the parser produces: parsing its output gives the same document', () => {
    const doc = markdownToDocument(RICH);
    const markdown = documentToMarkdown(doc);
    expect(markdownToDocument(markdown)).toEqual(doc);
    // And the output is a fixed point.
    expect(documentToMarkdown(markdownToDocument(markdown))).toBe(markdown);
  });

  it('writes canonical markdown back byte for byte', () => {
    const canonical = [
      '# Title',
      '',
      // Emphasis nested in strong is written with underscores, the serializer's unambiguous form.
      'Text with *italic*, **bold _both_**, ~~strike~~, `code` and [a link](https://x.example "t").',
      '',
      '- [ ] open',
      '- [x] closed',
      '',
      '3. three',
      '4. four',
      '   - nested',
      '',
      '> [!NOTE]',
      '> Note this.',
      '',
      '{% hint style="danger" %}',
      '',
      'Careful.',
      '',
      '{% endhint %}',
      '',
      '| a | b |',
      '| - | -: |',
      '| 1 | 2 |',
      '',
      '![x](/files/f1) ![y](y.png)',
      '',
      '---',
      '',
      '```sh',
      'echo hi',
      '```',
      '',
    ].join('\n');
    const out = documentToMarkdown(markdownToDocument(canonical));
    // Tables are re-padded by the serializer; everything else is kept as written.
    expect(out.replace(/\| a \|  b \|\n\| - \| -: \|\n\| 1 \|  2 \|/, '| a | b |\n| - | -: |\n| 1 | 2 |')).toBe(canonical);
  });

  it('writes references that carry no original URL as stable Quire links', () => {
    const markdown = documentToMarkdown({
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            { object: 'inline', type: 'link', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'p', marks: [] }] }], data: { ref: { kind: 'page', page: 'abc', anchor: 'x' } } },
            { object: 'text', leaves: [{ object: 'leaf', text: ' ', marks: [] }] },
            { object: 'inline', type: 'inline-image', nodes: [], isVoid: true, data: { ref: { kind: 'file', file: 'f9' }, alt: 'i' } },
          ],
        },
      ],
    });
    expect(markdown).toBe('[p](/pages/abc#x) ![i](/files/f9)\n');
  });
});

describe('extractReferences', () => {
  it('finds links to pages, outside URLs and files, resolving relative paths from the page', () => {
    const { links, files } = extractReferences(RICH, { pagePath: 'guides/intro' });
    expect(links.map((link) => link.target)).toEqual([
      { kind: 'url', url: 'https://example.com' },
      { kind: 'url', url: 'https://auto.example.org' },
      { kind: 'page-path', path: 'setup', anchor: 'install' },
      { kind: 'page', page: 'p42' },
      { kind: 'url', url: 'https://docs.example.com' },
    ]);
    expect(files.map((file) => [file.target, file.image])).toEqual([
      [{ kind: 'asset', path: '.gitbook/assets/diagram.png' }, true],
      [{ kind: 'file', file: 'f123' }, true],
      [{ kind: 'asset', path: 'guides/icon.svg' }, true],
    ]);
  });

  it('finds the specs OpenAPI blocks name, and the address older blocks load, but not blocks shown as code', () => {
    const markdown = [
      '{% openapi-operation spec="petstore" path="/pets/{id}/a_b_c" method="get" %}',
      '[OpenAPI petstore](https://example.com/petstore.yaml)',
      '{% endopenapi-operation %}',
      '',
      '> {% openapi-schemas spec="billing" schemas="Invoice" %}',
      '',
      '{% swagger src=".gitbook/assets/legacy.yaml" path="/pets" method="get" %}',
      '',
      '`{% openapi-webhook spec="inline-code" name="x" %}`',
      '',
      '```',
      '{% openapi-operation spec="in-code" path="/" method="get" %}',
      '```',
    ].join('\n');
    const { specs, links, files } = extractReferences(markdown);
    expect(specs).toEqual([{ spec: 'petstore' }, { spec: 'billing' }]);
    expect(links.map((link) => link.target)).toEqual([{ kind: 'url', url: 'https://example.com/petstore.yaml' }]);
    expect(files.map((file) => file.target)).toEqual([{ kind: 'asset', path: '.gitbook/assets/legacy.yaml' }]);
  });

  it('classifies URLs as @quire/markdown-rules does, and reads `ref:` labels of the same change batch', () => {
    // The rules themselves are unit-tested in packages/markdown-rules; here, what the server adds.
    expect(classifyUrl('ref:new-page')).toEqual({ kind: 'ref', label: 'new-page' });
    expect(classifyUrl(' REF:x ')).toEqual({ kind: 'ref', label: 'x' });
    expect(classifyUrl('mailto:a@b.c')).toEqual({ kind: 'url', url: 'mailto:a@b.c' });
    expect(classifyUrl('../../.gitbook/assets/a%20b.png', 'a/b/c')).toEqual({ kind: 'asset', path: '.gitbook/assets/a b.png' });
  });
});

describe('rewriteLinks', () => {
  it('changes only link, image and definition destinations, nothing else of the text', () => {
    const source = [
      'Text mentions ref:a and [ref:a](ref:a "ref:a").',
      '![ref:a](<ref:a>)',
      '',
      '[x]: ref:a',
      '',
      '`[code](ref:a)`',
      '',
    ].join('\n');
    const out = rewriteLinks(source, (url) => (url === 'ref:a' ? '/pages/P1' : undefined));
    expect(out).toBe(
      [
        'Text mentions ref:a and [ref:a](/pages/P1 "ref:a").',
        '![ref:a](</pages/P1>)',
        '',
        '[x]: /pages/P1',
        '',
        '`[code](ref:a)`',
        '',
      ].join('\n'),
    );
  });

  it('wraps destinations that need it in angle brackets, and leaves the text alone when nothing changes', () => {
    expect(rewriteLinks('[a](b)', () => 'with space')).toBe('[a](<with space>)');
    const source = '[a](b) and [c](d)';
    expect(rewriteLinks(source, () => undefined)).toBe(source);
  });

  it('finds the same destinations without parsing markdown that holds no [ or <', () => {
    const samples = [
      'Plain text, https://example.com and www.example.com, *emphasis* and `code`.\n',
      '# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n',
      '[a](b.md) and ![c](d.png)\n\n[e]: f.md\n',
      'An autolink <https://example.com> and <mail@example.com>.\n',
      ...MARKDOWN_SAMPLES,
    ];
    for (const markdown of samples) expect(findLinkDestinations(markdown)).toEqual(findLinkDestinations(markdown, parseMarkdown(markdown)));
    expect(findLinkDestinations('No brackets, https://example.com.\n')).toEqual([]);
  });

  it('turns an autolink whose target is rewritten into an ordinary link', () => {
    expect(rewriteLinks('See <ref:a>.', () => '/pages/P1')).toBe('See [ref:a](/pages/P1).');
  });
});

describe('extractSections', () => {
  it('cuts the page at headings, with GitHub-style anchors and plain-text bodies', () => {
    const sections = extractSections(
      'Intro **text**.\n\n# Install\n\nRun `npm i`.\n\n```sh\nnpm test\n```\n\n## Install\n\n- a\n- b\n\n## Émoji & Co!\n',
    );
    expect(sections).toEqual([
      { id: '', title: '', body: 'Intro text.' },
      { id: 'install', title: 'Install', body: 'Run npm i.\nnpm test' },
      { id: 'install-1', title: 'Install', body: 'a\nb' },
      { id: 'émoji--co', title: 'Émoji & Co!', body: '' },
    ]);
  });

  it('reads a table as its cells\' words, a row a line, without its Markdown', () => {
    const sections = extractSections('| Option | Default | Meaning |\n| --- | :-: | --- |\n| `--yes` | | Answer **yes** |\n');
    expect(sections).toEqual([{ id: '', title: '', body: 'Option Default Meaning\n--yes Answer yes' }]);
  });

  it('leaves out an empty part before the first heading and indexes hint contents', () => {
    const sections = extractSections('# A\n\n{% hint style="info" %}\nHidden gem\n{% endhint %}\n');
    expect(sections).toEqual([{ id: 'a', title: 'A', body: 'Hidden gem' }]);
  });

  it('makes anchors unique even against a heading that looks like a suffixed one', () => {
    const seen = new Map<string, number>();
    expect(['A', 'A-1', 'A'].map((title) => headingAnchor(title, seen))).toEqual(['a', 'a-1', 'a-2']);
  });
});
