import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRepository } from './export.js';
import { importRepository } from './import.js';
import { GitError, GitPushRejectedError } from './run-git.js';
import {
  FOLDER_REPO,
  MONOREPO,
  ROOT_CONFIG_REPO,
  SUMMARY_REPO,
  commitToBare,
  filesOf,
  git,
  makeBareRepo,
  makeEmptyBareRepo,
  shape,
  type FixtureFiles,
} from '../../test/support/git-fixtures.js';
import type { ExportContent } from './types.js';

const local = { allowLocal: true };
const main = 'refs/heads/main';

const CONTENT: ExportContent = {
  pages: [
    { id: 'p1', title: 'Welcome', slug: 'welcome', markdown: 'Read [the install](/guide/install#step-2) and [by id](/pages/p4).\n' },
    {
      id: 'p2',
      title: 'Guide',
      slug: 'guide',
      description: 'All about: it',
      icon: 'book',
      markdown: 'Intro ![shot](.gitbook/assets/screens/one.png)\n',
      children: [{ id: 'p3', title: 'Install', slug: 'install', markdown: '## Step 2\n\nBack [home](/welcome).\n' }],
    },
    {
      id: 'g1',
      type: 'group',
      title: 'Reference',
      slug: 'api',
      children: [
        { id: 'p4', title: 'Errors [and] *codes*', slug: 'errors', hidden: true, markdown: 'Codes.\n' },
        { id: 'l1', type: 'link', title: 'Status', slug: 'status', href: 'https://status.example.com/(x)' },
      ],
    },
  ],
  files: [{ name: 'screens/one.png', bytes: Buffer.from([1, 2, 3]) }],
};

describe('exportRepository to local repositories', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-export-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes pages, SUMMARY.md, assets and .gitbook.yaml into a new branch', async () => {
    const target = makeEmptyBareRepo(dir, 'fresh');
    const result = await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'First export' }, CONTENT, local);
    expect(result.changed).toBe(true);
    expect(result.oid).toBe(git(['rev-parse', 'main'], target.path).trim());
    expect(git(['log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', 'main'], target.path).trim()).toBe(
      'Quire <quire@localhost>|Quire <quire@localhost>|First export',
    );
    const files = filesOf(target.path, 'main');
    expect([...files.keys()].sort()).toEqual([
      '.gitbook.yaml',
      '.gitbook/assets/screens/one.png',
      'README.md',
      'SUMMARY.md',
      'api/errors.md',
      'guide/README.md',
      'guide/install.md',
    ]);
    expect(files.get('README.md')).toBe('# Welcome\n\nRead [the install](guide/install.md#step-2) and [by id](api/errors.md).\n');
    expect(files.get('guide/README.md')).toBe(
      '---\ndescription: "All about: it"\nicon: book\n---\n\n# Guide\n\nIntro ![shot](../.gitbook/assets/screens/one.png)\n',
    );
    expect(files.get('guide/install.md')).toBe('# Install\n\n## Step 2\n\nBack [home](../README.md).\n');
    expect(files.get('api/errors.md')).toBe('---\nhidden: true\n---\n\n# Errors [and] *codes*\n\nCodes.\n');
    expect(files.get('SUMMARY.md')).toBe(
      [
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '* [Guide](guide/README.md)',
        '  * [Install](guide/install.md)',
        '',
        '## Reference <a href="#api" id="api"></a>',
        '',
        '* [Errors \\[and\\] \\*codes\\*](api/errors.md)',
        '* [Status](<https://status.example.com/(x)>)',
        '',
      ].join('\n'),
    );
    expect(files.get('.gitbook.yaml')).toBe('root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n');
  });

  it('reads back what it wrote: slugs, titles, metadata, links and files', async () => {
    const target = makeEmptyBareRepo(dir, 'readback');
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'Export' }, CONTENT, local);
    const back = await importRepository({ url: target.fileUrl, ref: main }, local);
    expect(shape(back.pages)).toEqual([
      { type: 'document', title: 'Welcome', slug: 'welcome', markdown: 'Read [the install](/guide/install#step-2) and [by id](/api/errors).\n', children: [] },
      {
        type: 'document',
        title: 'Guide',
        slug: 'guide',
        description: 'All about: it',
        icon: 'book',
        markdown: 'Intro ![shot](.gitbook/assets/screens/one.png)\n',
        children: [{ type: 'document', title: 'Install', slug: 'install', markdown: '## Step 2\n\nBack [home](/welcome).\n', children: [] }],
      },
      {
        type: 'group',
        title: 'Reference',
        slug: 'api',
        markdown: '',
        children: [
          { type: 'document', title: 'Errors [and] *codes*', slug: 'errors', hidden: true, markdown: 'Codes.\n', children: [] },
          { type: 'link', title: 'Status', slug: 'status', href: 'https://status.example.com/(x)', markdown: '', children: [] },
        ],
      },
    ]);
    expect(back.files.map((file) => [file.name, [...file.bytes]])).toEqual([['screens/one.png', [1, 2, 3]]]);
  });

  it.each<[string, FixtureFiles, string | undefined]>([
    ['with SUMMARY.md and nested folders', SUMMARY_REPO, undefined],
    ['without SUMMARY.md', FOLDER_REPO, undefined],
    ['with a .gitbook.yaml root', ROOT_CONFIG_REPO, undefined],
    ['in a project directory', MONOREPO, 'packages/docs'],
  ])('round-trips a repository %s: import, export to a new repository, import gives the same tree', async (name, files, project) => {
    const source = await makeBareRepo(dir, `rt-source-${name.replace(/\W+/g, '-')}`, files);
    const target = makeEmptyBareRepo(dir, `rt-target-${name.replace(/\W+/g, '-')}`);
    const input = { ref: main, ...(project ? { repoProjectDirectory: project } : {}) };
    const first = await importRepository({ url: source.fileUrl, ...input }, local);
    await exportRepository({ url: target.fileUrl, commitMessage: 'Round trip', ...input }, first, local);
    const second = await importRepository({ url: target.fileUrl, ...input }, local);
    expect(shape(second.pages)).toEqual(shape(first.pages));
    expect(second.files.map((file) => [file.name, file.bytes.toString('hex')])).toEqual(
      first.files.map((file) => [file.name, file.bytes.toString('hex')]),
    );
    // And a second export of the same content changes nothing.
    const again = await exportRepository({ url: target.fileUrl, commitMessage: 'Again', ...input }, second, local);
    expect(again).toEqual({ oid: second.commit.oid, changed: false });
  });

  it('updates an existing branch: removes pages that are gone, keeps unrelated files and the config', async () => {
    const repo = await makeBareRepo(dir, 'existing', {
      ...SUMMARY_REPO,
      '.gitbook.yaml': '# ours\nroot: ./\n',
      'package.json': '{}\n',
    });
    const imported = await importRepository({ url: repo.fileUrl, ref: main }, local);
    // Drop the Guide subtree and the logo; rename nothing else.
    const edited: ExportContent = {
      pages: imported.pages.filter((page) => page.slug !== 'guide'),
      files: imported.files.filter((file) => file.name !== 'logo.png'),
    };
    const result = await exportRepository({ url: repo.fileUrl, ref: main, commitMessage: 'Remove the guide' }, edited, local);
    expect(result.changed).toBe(true);
    expect(git(['rev-parse', 'main~1'], repo.path).trim()).toBe(imported.commit.oid);
    const files = [...filesOf(repo.path, 'main').keys()].sort();
    expect(files).toEqual([
      '.gitbook.yaml',
      '.gitbook/assets/diagrams/flow.svg',
      'README.md',
      'SUMMARY.md',
      'api-reference/rest.md',
      'api-reference/topics/errors.md',
      // The page whose file was missing now has one.
      'missing.md',
      // Not a page (not in the summary), so not Quire's to remove.
      'notes/unlisted.md',
      'package.json',
    ]);
    expect(filesOf(repo.path, 'main').get('.gitbook.yaml')).toBe('# ours\nroot: ./\n');
  });

  it('writes where an existing .gitbook.yaml says: its root, readme and summary names', async () => {
    const repo = await makeBareRepo(dir, 'configured', ROOT_CONFIG_REPO);
    const imported = await importRepository({ url: repo.fileUrl, ref: main }, local);
    const edited: ExportContent = {
      pages: [...imported.pages, { title: 'Added', slug: 'added', markdown: 'See [intro](/intro).\n' }],
      files: imported.files,
    };
    await exportRepository({ url: repo.fileUrl, ref: main, commitMessage: 'Add a page' }, edited, local);
    const files = filesOf(repo.path, 'main');
    expect([...files.keys()].sort()).toEqual([
      '.gitbook.yaml',
      'README.md',
      'docs/.gitbook/assets/shot.png',
      'docs/added.md',
      'docs/intro.md',
      'docs/setup.md',
      'docs/toc.md',
    ]);
    expect(files.get('docs/added.md')).toBe('# Added\n\nSee [intro](intro.md).\n');
    expect(files.get('docs/toc.md')).toBe('# Table of contents\n\n* [Intro](intro.md)\n* [Setup](setup.md)\n* [Added](added.md)\n');
    expect(files.get('.gitbook.yaml')).toBe(ROOT_CONFIG_REPO['.gitbook.yaml']);
  });

  it('keeps the order of pages and groups when a page follows a group, and nested groups', async () => {
    const content: ExportContent = {
      pages: [
        { title: 'First', slug: 'first', markdown: '' },
        { type: 'group', title: 'Group A', slug: 'a', children: [{ title: 'In A', slug: 'in-a' }] },
        {
          title: 'After',
          slug: 'after',
          children: [{ type: 'group', title: 'Nested', slug: 'nested', children: [{ title: 'Deep', slug: 'deep' }] }],
        },
      ],
    };
    const target = makeEmptyBareRepo(dir, 'ordering');
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'x' }, content, local);
    const back = await importRepository({ url: target.fileUrl, ref: main }, local);
    const outline = (pages: readonly { type: string; slug: string; children: readonly unknown[] }[]): unknown =>
      pages.map((page) => [page.type, page.slug, outline(page.children as never)]);
    expect(outline(back.pages)).toEqual([
      ['document', 'first', []],
      ['group', 'a', [['document', 'in-a', []]]],
      ['document', 'after', [['group', 'nested', [['document', 'deep', []]]]]],
    ]);
  });

  it('exports into repoProjectDirectory and leaves the rest of the repository alone', async () => {
    const repo = await makeBareRepo(dir, 'project', { 'src/app.js': 'x\n', 'README.md': '# App\n' });
    await exportRepository(
      { url: repo.fileUrl, ref: main, commitMessage: 'Docs', repoProjectDirectory: 'docs' },
      { pages: [{ title: 'Docs', slug: 'docs', markdown: 'Hi\n' }, { title: 'More', slug: 'more', markdown: '' }] },
      local,
    );
    const files = filesOf(repo.path, 'main');
    expect([...files.keys()].sort()).toEqual(['README.md', 'docs/.gitbook.yaml', 'docs/README.md', 'docs/SUMMARY.md', 'docs/more.md', 'src/app.js']);
    expect(files.get('README.md')).toBe('# App\n');
    const back = await importRepository({ url: repo.fileUrl, ref: main, repoProjectDirectory: 'docs' }, local);
    expect(back.pages.map((page) => page.slug)).toEqual(['docs', 'more']);
  });

  it('creates a branch that does not exist yet, next to the others', async () => {
    const repo = await makeBareRepo(dir, 'newbranch', { 'README.md': '# Main\n' });
    const before = git(['rev-parse', 'main'], repo.path).trim();
    await exportRepository({ url: repo.fileUrl, ref: 'refs/heads/docs/quire', commitMessage: 'New' }, CONTENT, local);
    expect(git(['rev-parse', 'main'], repo.path).trim()).toBe(before);
    expect(filesOf(repo.path, 'docs/quire').get('README.md')).toContain('# Welcome');
  });

  it('uses the configured author', async () => {
    const target = makeEmptyBareRepo(dir, 'author');
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'By Ada' }, CONTENT, {
      ...local,
      author: { name: 'Ada', email: 'ada@example.com' },
    });
    expect(git(['log', '-1', '--format=%an <%ae>', 'main'], target.path).trim()).toBe('Ada <ada@example.com>');
  });

  it('refuses to overwrite commits the space has not seen, unless forced', async () => {
    const repo = await makeBareRepo(dir, 'moved', { 'README.md': '# Start\n' });
    const synced = git(['rev-parse', 'main'], repo.path).trim();
    const moved = await commitToBare(repo.path, 'main', { 'other.md': '# Someone else\n' }, 'Edit on the Git side');
    const input = { url: repo.fileUrl, ref: main, commitMessage: 'Export', expectedOid: synced };
    const error = await exportRepository(input, CONTENT, local).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitPushRejectedError);
    expect((error as GitPushRejectedError).code).toBe('remote-moved');
    expect((error as Error).message).toContain(`it is at ${moved.slice(0, 12)}, the space last synced ${synced.slice(0, 12)}`);
    expect(git(['rev-parse', 'main'], repo.path).trim()).toBe(moved);

    const forced = await exportRepository({ ...input, force: true }, CONTENT, local);
    expect(forced.changed).toBe(true);
    expect(git(['rev-parse', 'main'], repo.path).trim()).toBe(forced.oid);
    // With the space up to date, the same export goes through without force.
    const next = await exportRepository({ ...input, expectedOid: forced.oid, commitMessage: 'Next' }, { pages: [{ title: 'Only', slug: 'only' }] }, local);
    expect(next.changed).toBe(true);
  });

  it('never writes through a symlink of the repository', async () => {
    const outside = await mkdtemp(join(dir, 'outside-'));
    const repo = await makeBareRepo(dir, 'symlinked', { 'README.md': '# Hi\n', guide: { symlink: outside } });
    const content: ExportContent = {
      pages: [{ title: 'Hi', slug: 'hi' }, { type: 'group', title: 'Guide', slug: 'guide', children: [{ title: 'Page', slug: 'page', markdown: 'x' }] }],
    };
    const error = await exportRepository({ url: repo.fileUrl, ref: main, commitMessage: 'x' }, content, local).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toBe('Could not write guide/page.md: a file of the repository is in the way');
    expect(await readdir(outside)).toEqual([]);
  });

  it('keeps the work folder when given one, and only then', async () => {
    const target = makeEmptyBareRepo(dir, 'kept');
    const workDir = join(dir, 'work-kept');
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'x' }, CONTENT, { ...local, workDir });
    expect(git(['rev-parse', 'HEAD'], workDir).trim()).toBe(git(['rev-parse', 'main'], target.path).trim());
    await mkdir(join(dir, 'not-empty', 'x'), { recursive: true });
    await expect(
      exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'x' }, CONTENT, { ...local, workDir: join(dir, 'not-empty') }),
    ).rejects.toThrow('The export folder must be empty');
    const temp = await mkdtemp(join(dir, 'temp-'));
    await exportRepository({ url: target.fileUrl, ref: main, commitMessage: 'y' }, { pages: [] }, { ...local, tempDir: temp });
    expect(await readdir(temp)).toEqual([]);
  });
});
