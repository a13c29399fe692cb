import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRepository } from './export.js';
import { importRepository } from './import.js';
import { filesOf, makeBareRepo, makeEmptyBareRepo } from '../../test/support/git-fixtures.js';
import type { ExportContent } from './types.js';

/*
 * Reusable contents in Git, GitBook's way: a Markdown file under `.gitbook/includes/` with its title in the
 * front matter, inserted in pages by `{% include "<relative path>" %}`.
 */

const local = { allowLocal: true };
const main = 'refs/heads/main';

describe('reusable contents through Git', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-reusable-git-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('imports .gitbook/includes files as reusable contents and the include tags of pages from the space root', async () => {
    const repo = await makeBareRepo(dir, 'includes', {
      'README.md': '# Welcome\n\n{% include ".gitbook/includes/support.md" %}\n',
      'guide/install.md': '# Install\n\n{% include "../.gitbook/includes/support.md" %}\n\n{% include "../elsewhere.md" %}\n',
      '.gitbook/includes/support.md': '---\ntitle: Support desk\n---\n\nWrite to **help@example.com**, see [install](../../guide/install.md).\n',
    });
    const content = await importRepository({ url: repo.fileUrl, ref: main }, local);
    expect(content.reusables).toEqual([
      {
        name: 'support.md',
        title: 'Support desk',
        markdown: 'Write to **help@example.com**, see [install](/guide/install).\n',
        git: { oid: expect.any(String), path: '.gitbook/includes/support.md' },
      },
    ]);
    expect(content.pages[0]!.markdown).toBe('{% include ".gitbook/includes/support.md" %}\n');
    const install = content.pages.flatMap((page) => [page, ...page.children]).find((page) => page.title === 'Install')!;
    expect(install.markdown).toBe('{% include ".gitbook/includes/support.md" %}\n\n{% include "../elsewhere.md" %}\n');
  });

  it('exports reusable contents to .gitbook/includes and includes by id as relative paths, and reads them back', async () => {
    const content: ExportContent = {
      pages: [
        { id: 'p1', title: 'Welcome', slug: 'welcome', markdown: '{% include "/reusable-contents/rc1" %}\n' },
        { id: 'p2', title: 'Guide', slug: 'guide', markdown: 'Guide.\n', children: [{ id: 'p3', title: 'Install', slug: 'install', markdown: 'Then:\n\n{% include "/reusable-contents/rc2" %}\n' }] },
      ],
      reusables: [
        { id: 'rc1', title: 'Support desk', markdown: 'Write to **help@example.com**, see [install](/pages/p3).\n' },
        { id: 'rc2', title: 'Kept name', name: 'kept.md', markdown: '' },
      ],
    };
    const target = makeEmptyBareRepo(dir, 'exported');
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'Export' }, content, local);
    const files = filesOf(target.path, 'main');
    expect(files.get('README.md')).toBe('# Welcome\n\n{% include ".gitbook/includes/support-desk.md" %}\n');
    expect(files.get('guide/install.md')).toBe('# Install\n\nThen:\n\n{% include "../.gitbook/includes/kept.md" %}\n');
    expect(files.get('.gitbook/includes/support-desk.md')).toBe('---\ntitle: Support desk\n---\n\nWrite to **help@example.com**, see [install](../../guide/install.md).\n');
    expect(files.get('.gitbook/includes/kept.md')).toBe('---\ntitle: Kept name\n---\n\n');

    const back = await importRepository({ url: target.fileUrl, ref: main }, local);
    expect(back.reusables!.map(({ name, title, markdown }) => ({ name, title, markdown }))).toEqual([
      { name: 'kept.md', title: 'Kept name', markdown: '' },
      { name: 'support-desk.md', title: 'Support desk', markdown: 'Write to **help@example.com**, see [install](/guide/install).\n' },
    ]);

    // A reusable content deleted since is removed from the branch on the next export.
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'Again' }, { ...content, reusables: content.reusables!.slice(0, 1) }, local);
    expect(filesOf(target.path, 'main').has('.gitbook/includes/kept.md')).toBe(false);
  });
});
