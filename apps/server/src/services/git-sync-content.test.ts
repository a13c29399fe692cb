import { afterAll, describe, expect, it } from 'vitest';
import { closeMarkdownPool, ContentError, MAX_BLOCK_NESTING, MAX_TREE_DEPTH } from '../content/index.js';
import type { ImportedPage, ImportedReusable } from '../git/types.js';
import { checkImportedMarkdown } from './git-sync-content.js';

afterAll(() => closeMarkdownPool());

const tooDeep = `${'> '.repeat(MAX_BLOCK_NESTING + 1)}deep\n`;

function page(path: string, markdown: string, children: ImportedPage[] = []): ImportedPage {
  return { type: 'document', title: path, slug: path.replace(/\W+/g, '-'), markdown, git: { oid: 'oid', path }, children };
}

function reusable(path: string, markdown: string): ImportedReusable {
  return { name: path, title: path, markdown, git: { oid: 'oid', path } };
}

/** Pages enough (over 200,000 characters) that they are checked in batches in worker threads. */
const filler = Array.from({ length: 300 }, (_, i) => page(`filler-${i}.md`, `${'Words and [a link](x.md). '.repeat(40)}\n`));

async function refusal(pages: ImportedPage[], reusables: ImportedReusable[] = [], treeDepths?: Map<string, number>): Promise<string | undefined> {
  try {
    await checkImportedMarkdown(pages, reusables, treeDepths);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ContentError);
    expect((error as ContentError).code).toBe('content_limit');
    return (error as ContentError).message;
  }
}

describe('checkImportedMarkdown', () => {
  for (const [how, extra] of [
    ['in place', [] as ImportedPage[]],
    ['in batches', filler],
  ] as const) {
    it(`refuses the first page or reusable content past a limit, reusable contents first (${how})`, async () => {
      expect(await refusal([...extra, page('ok.md', 'Fine.\n')])).toBeUndefined();
      const pages = [...extra, page('parent.md', 'Fine.\n', [page('child.md', tooDeep)]), page('later.md', tooDeep)];
      expect(await refusal(pages)).toMatch(/^The page child\.md nests quotes and lists up to \d+ levels deep/);
      expect(await refusal(pages, [reusable('.gitbook/includes/deep.md', tooDeep)])).toMatch(
        /^The reusable content \.gitbook\/includes\/deep\.md nests quotes/,
      );
    }, 180_000);
  }

  it('takes the depth measured when the links were read instead of parsing again, with the same checks', async () => {
    const deep = 'Deep.\n';
    // The depth given for a text decides its tree-depth check (the text itself is shallow); texts without one are parsed.
    expect(await refusal([...filler, page('deep.md', deep)], [], new Map([[deep, MAX_TREE_DEPTH + 1]]))).toMatch(
      new RegExp(`^The page deep\\.md nests blocks and inline formatting ${MAX_TREE_DEPTH + 1} levels deep`),
    );
    expect(await refusal([...filler, page('deep.md', deep)], [], new Map([[deep, 2]]))).toBeUndefined();
    // The checks of the text alone still run on it, and the first breach in tree order is answered.
    expect(await refusal([page('first.md', tooDeep), page('deep.md', deep)], [], new Map([[tooDeep, 3], [deep, MAX_TREE_DEPTH + 1]]))).toMatch(/^The page first\.md nests quotes/);
  }, 180_000);
});
