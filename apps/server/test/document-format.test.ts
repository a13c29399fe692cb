import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, type Doc, type DocNode } from '../src/content/index.js';
import { publicSchemaViolations } from './gates/wire-gate.js';
import { generateMarkdown, MARKDOWN_SAMPLES } from './markdown-corpus.js';

/*
 * The document format (`format=document` reads, document bodies of edits and comments) as properties over
 * the markdown corpus: markdown read as a document and written back gives the same document, and every node
 * has the shape the public API's description gives it (the wire gate's oracle), so a typed client of the
 * public API reads it. Node kinds the public format has no counterpart for are the allow-list's to name.
 */

const CORPUS = [...MARKDOWN_SAMPLES, ...generateMarkdown(15, 150)];

/** The public schema of each node kind the public format has. */
const PUBLIC_SCHEMA: Record<string, string> = {
  'block paragraph': 'DocumentBlockParagraph',
  'block heading-1': 'DocumentBlockHeading',
  'block heading-2': 'DocumentBlockHeading',
  'block heading-3': 'DocumentBlockHeading',
  'block list-ordered': 'DocumentBlockListOrdered',
  'block list-unordered': 'DocumentBlockListUnordered',
  'block list-tasks': 'DocumentBlockListTasks',
  'block list-item': 'DocumentBlockListItem',
  'block divider': 'DocumentBlockDivider',
  'block blockquote': 'DocumentBlockQuote',
  'block hint': 'DocumentBlockHint',
  'block tabs': 'DocumentBlockTabs',
  'block tabs-item': 'DocumentBlockTabsItem',
  'block images': 'DocumentBlockImages',
  'block image': 'DocumentBlockImage',
  'block code': 'DocumentBlockCode',
  'block code-line': 'DocumentBlockCodeLine',
  'block table': 'DocumentBlockTable',
  'inline link': 'DocumentInlineLink',
  'inline inline-image': 'DocumentInlineImage',
};

/**
 * Markdown that the public format has no node for: raw HTML, footnotes and hard line breaks. They keep
 * Quire's own node kinds (the contract's document allows any `type`), and the wire gate's allow-list names them.
 */
const QUIRE_ONLY = new Set(['block html', 'inline html', 'block footnote', 'inline footnote-ref', 'inline break']);

/**
 * Each node checked against its own public schema, for its own fields (`data`, `isVoid`, `fragments`...):
 * its children are checked as nodes themselves. Which blocks may hold which is left out: markdown nests any
 * block in a list item or a quote (code in a quote, an image in a list), which the public format does not.
 */
function shapeViolations(document: Doc): string[] {
  const out: string[] = [];
  for (const node of allNodes(document.nodes)) {
    if (node.object === 'text') {
      out.push(...publicSchemaViolations('DocumentText', node).map((violation) => `text ${violation.instancePath}: ${violation.message}`));
      continue;
    }
    const kind = `${node.object} ${node.type}`;
    const schema = PUBLIC_SCHEMA[kind];
    if (!schema) {
      if (!QUIRE_ONLY.has(kind)) out.push(`${kind}: no such node in the public format`);
      continue;
    }
    const own = publicSchemaViolations(schema, node).filter((violation) => !/^\/(nodes|fragments\/\d+\/nodes)\/\d+/.test(violation.instancePath.replace(/\*/g, '0')));
    out.push(...own.map((violation) => `${kind} ${violation.instancePath}: ${violation.message}`));
  }
  return out;
}

function allNodes(nodes: readonly DocNode[]): DocNode[] {
  return nodes.flatMap((node) => [
    node,
    ...(node.object === 'text' ? [] : allNodes(node.nodes)),
    ...('fragments' in node ? node.fragments.flatMap((fragment) => allNodes(fragment.nodes)) : []),
  ]);
}

describe('document format', () => {
  it('round-trips: a document written back as markdown reads as the same document, and that markdown is a fixed point', () => {
    for (const [index, markdown] of CORPUS.entries()) {
      const document = markdownToDocument(markdown);
      const written = documentToMarkdown(document);
      expect(markdownToDocument(written), `corpus item ${index}:\n${markdown}\n--- written as:\n${written}`).toEqual(document);
      expect(documentToMarkdown(markdownToDocument(written)), `corpus item ${index}`).toBe(written);
    }
  });

  it("gives every node the public format's shape, and a document of what the public format has validates whole", () => {
    for (const [index, markdown] of CORPUS.entries()) {
      expect(shapeViolations(markdownToDocument(markdown)), `corpus item ${index}:\n${markdown}`).toEqual([]);
    }
    const whole = markdownToDocument(
      [
        '# One', '## Two', '### Three', '#### Four',
        'Text *with* **marks**, a [link](https://example.com), a [page](/pages/p1) and ![inline](/files/f1).',
        '- a\n- b\n  1. c', '3. d\n4. e', '- [ ] f\n- [x] g',
        '> quoted\n>\n> > deeper', '> [!TIP]\n> tip', '{% hint style="danger" %}\ncareful\n{% endhint %}',
        '{% tabs %}\n{% tab title="npm" %}\nnpm i\n{% endtab %}\n{% tab title="yarn" %}\n- yarn add\n{% endtab %}\n{% endtabs %}',
        '```js\nconst a = 1;\n```', '| **A** | B |\n| :-: | - |\n| 1 | [x](#y) |', '![i](https://img.example/i.png) ![j](/files/f2)', '---',
      ].join('\n\n'),
    );
    expect(publicSchemaViolations('JSONDocument', whole)).toEqual([]);
  });

  it('keys every node and fragment uniquely', () => {
    for (const markdown of CORPUS) {
      const document = markdownToDocument(markdown);
      const keyed = [...allNodes(document.nodes), ...allNodes(document.nodes).flatMap((node) => ('fragments' in node ? node.fragments : []))];
      const keys = keyed.map((node) => node.key);
      expect(keys.every((key) => typeof key === 'string' && key.length > 0 && key.length <= 128)).toBe(true);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('makes a table a void block with its columns, records and cells in fragments', () => {
    const document = markdownToDocument('| **Name** | Size |\n| :-- | --: |\n| a | 1 |\n| *b* | 2 |\n');
    const table = document.nodes[0]!;
    expect(table).toMatchObject({
      object: 'block',
      type: 'table',
      isVoid: true,
      nodes: [],
      data: {
        view: { type: 'grid', columns: ['c0', 'c1'], hideHeader: false },
        definition: { c0: { id: 'c0', title: 'Name', type: 'text', textAlignment: 'left' }, c1: { id: 'c1', title: 'Size', type: 'text', textAlignment: 'right' } },
        records: { r0: { orderIndex: '000000', values: { c0: 'r0:c0', c1: 'r0:c1' } }, r1: { orderIndex: '000001', values: { c0: 'r1:c0', c1: 'r1:c1' } } },
      },
    });
    if (table.type !== 'table') throw new Error('not a table');
    expect(table.fragments.map((fragment) => fragment.fragment)).toEqual(['header:c0', 'r0:c0', 'r0:c1', 'r1:c0', 'r1:c1']);
    expect(table.fragments[3]!.nodes[0]).toMatchObject({ type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'b', marks: [{ type: 'italic' }] }] }] });
    expect(documentToMarkdown(document)).toBe('| **Name** | Size |\n| -------- | ---: |\n| a        |    1 |\n| *b*      |    2 |\n');
  });

  it('writes documents of other producers: a table whose cells are plain values, and the earlier table rows', () => {
    const table = {
      object: 'block',
      type: 'table',
      isVoid: true,
      data: {
        view: { type: 'grid', columns: ['b', 'a'], hideHeader: false },
        definition: { a: { id: 'a', title: 'A', type: 'text', textAlignment: 'center' }, b: { id: 'b', title: 'B', type: 'text', textAlignment: 'left' } },
        records: { second: { orderIndex: 'b', values: { a: 'x', b: 2 } }, first: { orderIndex: 'a', values: { a: 'frag' } } },
      },
      fragments: [{ object: 'fragment', fragment: 'frag', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'F', marks: [{ object: 'mark', type: 'bold' }] }] }] }] }],
    };
    expect(documentToMarkdown({ nodes: [table as never] })).toBe('| B |   A   |\n| - | :---: |\n|   | **F** |\n| 2 |   x   |\n');
    const rows = {
      object: 'block',
      type: 'table',
      nodes: ['h', 'v'].map((text) => ({ object: 'block', type: 'table-row', nodes: [{ object: 'block', type: 'table-cell', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }] })),
    };
    expect(documentToMarkdown({ nodes: [rows as never] })).toBe('| h |\n| - |\n| v |\n');
  });

  it('keeps markdown heading levels past the third as heading-3 with data.level, and numbered task lists as numbered lists', () => {
    const document = markdownToDocument('#### Four\n\n3. [x] task\n');
    expect(document.nodes[0]).toMatchObject({ type: 'heading-3', data: { level: 4 } });
    expect(document.nodes[1]).toMatchObject({ type: 'list-ordered', data: { start: 3 }, nodes: [{ type: 'list-item', data: { checked: true } }] });
    expect(documentToMarkdown(document)).toBe('#### Four\n\n3. [x] task\n');
  });
});
