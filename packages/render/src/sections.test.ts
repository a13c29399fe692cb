import { describe, expect, it } from 'vitest';
import { renderMarkdown, type RenderInput } from './markdown.js';
import { createSectionRenderer, joinSections, splitSections } from './sections.js';

const base: Omit<RenderInput, 'markdown'> = { pagePath: 'guide/intro', pages: { 'id:p1': '/guide/other', 'path:guide/other': '/guide/other' }, files: {} };

/** Pages in every shape the editor meets: the sectioned render must be the whole render, byte for byte. */
const PAGES = [
  '# Title\n\nIntro paragraph.\n\n## Install\n\n- one\n- two\n\n  continued\n\n## Use it\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n',
  'No heading at all, just text\nover two lines.\n',
  'Text right before\n# A heading\nand text right after\n## Next\n',
  '```sh\n# not a heading\necho hi\n```\n\n# Real\n\n~~~\n## still code\n~~~\n',
  '{% hint style="info" %}\n# Inside a hint\nText.\n{% endhint %}\n\n## After the hint\n\nMore.\n',
  'Setext title\n============\n\nBody.\n\n# ATX\n\n> quote\n> # quoted heading\n',
  '## Links\n\n[other](/pages/p1) and [rel](other.md) and [out](https://example.com).\n\n## Code\n\n```js\nconst a = 1;\n```\n',
  '# One\n\n1. first\n2. second\n\n# Two\n\n- [ ] task\n- [x] done\n\n---\n\n# Three ###\n',
  '#No space is a paragraph\n\n# Then a heading\n\n####### seven is text\n',
  '{% tabs %}\n{% tab title="a" %}\nA\n{% endtab %}\n{% endtabs %}\n\n# One\n\n{% tabs %}\n{% tab title="b" %}\n## In a tab\n{% endtab %}\n{% endtabs %}\n\n# Two\n\n{% tabs %}\n{% tab title="c" %}\nC\n{% endtab %}\n{% endtabs %}\n',
  '',
];

describe('splitSections and createSectionRenderer', () => {
  it('render each page exactly as renderMarkdown renders it whole', () => {
    for (const markdown of PAGES) {
      const render = createSectionRenderer();
      expect(joinSections(render({ ...base, markdown })), markdown).toEqual(renderMarkdown({ ...base, markdown }));
    }
  });

  it('cut at headings outside code fences, hints and tabs only', () => {
    expect(splitSections(PAGES[3]!)).toEqual(['```sh\n# not a heading\necho hi\n```\n', '# Real\n\n~~~\n## still code\n~~~\n']);
    expect(splitSections(PAGES[4]!)).toEqual(['{% hint style="info" %}\n# Inside a hint\nText.\n{% endhint %}\n', '## After the hint\n\nMore.\n']);
    expect(splitSections('# A\n\n{% tabs %}\n{% tab title="t" %}\n# In a tab\n{% endtab %}\n{% endtabs %}\n# B\n')).toEqual([
      '# A\n\n{% tabs %}\n{% tab title="t" %}\n# In a tab\n{% endtab %}\n{% endtabs %}',
      '# B\n',
    ]);
    // A heading in a hint or a tab is told apart from the others' anchors by the whole render.
    expect(splitSections('# A\n\n{% tabs %}\n{% tab title="t" %}\n# A\n{% endtab %}\n{% endtabs %}\n')).toBeNull();
  });

  it('render whole the pages whose sections depend on each other: reference links, footnotes, repeated headings', () => {
    const pages = [
      '# A\n\nSee [the docs][docs].\n\n# B\n\n[docs]: https://example.com\n',
      '# A\n\nA claim.[^1]\n\n# B\n\n[^1]: The source.\n',
      '# Install it\n\nx\n\n# Install it\n\ny\n',
    ];
    for (const markdown of pages) {
      expect(splitSections(markdown)).toBeNull();
      expect(joinSections(createSectionRenderer()({ ...base, markdown }))).toEqual(renderMarkdown({ ...base, markdown }));
    }
  });

  it('stay equal to the whole render through a run of edits, rendering again only the section changed', () => {
    const render = createSectionRenderer();
    let markdown = PAGES[0]!;
    const before = render({ ...base, markdown }).parts;
    const after = render({ ...base, markdown: markdown.replace('Intro paragraph.', 'Intro, changed.') }).parts;
    expect(after.map((part, index) => part === before[index])).toEqual([false, true, true]);
    const edits: ((text: string) => string)[] = [
      (text) => text.replace('Intro paragraph.', 'Intro paragraph, longer.'),
      (text) => text.replace('## Use it', '## Use it now'),
      (text) => `${text}\n## Added\n\nAt the end.\n`,
      (text) => text.replace('## Install\n', 'Install\n'),
      (text) => text.replace('# Title', '```\n# Title'),
      (text) => `${text}\n\`\`\`\n`,
    ];
    for (const edit of edits) {
      markdown = edit(markdown);
      expect(joinSections(render({ ...base, markdown })), markdown).toEqual(renderMarkdown({ ...base, markdown }));
    }
  });
});
