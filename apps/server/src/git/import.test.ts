import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundUrlError } from '../net/url-guard.js';
import { checkGitSyncTarget, importRepository } from './import.js';
import { GitError, GitLimitError } from './run-git.js';
import { FOLDER_REPO, MONOREPO, ROOT_CONFIG_REPO, SUMMARY_REPO, git, makeBareRepo, shape } from '../../test/support/git-fixtures.js';

describe('importRepository from local repositories', () => {
  let dir: string;
  let summaryRepo: Awaited<ReturnType<typeof makeBareRepo>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-import-test-'));
    summaryRepo = await makeBareRepo(dir, 'summary', SUMMARY_REPO, { message: 'Docs\n\nWith a body.' });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds the tree from SUMMARY.md, with groups, links, front matter and rewritten links', async () => {
    const content = await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true });
    expect(content.commit).toEqual({ oid: summaryRepo.oid, message: 'Docs\n\nWith a body.' });
    expect(shape(content.pages)).toEqual([
      {
        type: 'document',
        title: 'Welcome',
        slug: 'welcome',
        markdown: 'Start with [installing](/guide/install#requirements), see the ![logo](.gitbook/assets/logo.png).\n',
        children: [],
      },
      {
        type: 'document',
        // The summary's link text wins over the file's own heading ("The guide").
        title: 'Guide',
        slug: 'guide',
        description: 'How to use it',
        icon: 'book',
        hidden: true,
        markdown: 'Back [home](/welcome). Next: [advanced](/guide/configure/advanced).\n',
        children: [
          {
            type: 'document',
            title: 'Install',
            slug: 'install',
            markdown: '## Requirements\n\nCode:\n\n```md\n[not rewritten](../README.md)\n```\n',
            children: [],
          },
          {
            type: 'document',
            title: 'Configure',
            slug: 'configure',
            markdown: 'See [REST](/api-reference/rest) and [site](https://example.com).\n',
            children: [{ type: 'document', title: 'Advanced', slug: 'advanced', markdown: 'No heading.\n', children: [] }],
          },
        ],
      },
      { type: 'document', title: 'Missing page', slug: 'missing', markdown: '', children: [] },
      {
        type: 'group',
        title: 'Reference',
        slug: 'api-reference',
        markdown: '',
        children: [
          { type: 'document', title: 'REST API', slug: 'rest', markdown: '![diagram](.gitbook/assets/diagrams/flow.svg)\n', children: [] },
          { type: 'link', title: 'Status page', slug: 'status-page', markdown: '', href: 'https://status.example.com', children: [] },
          {
            type: 'group',
            title: 'Topics',
            slug: 'topics',
            markdown: '',
            children: [{ type: 'document', title: 'Errors', slug: 'errors', markdown: '', children: [] }],
          },
        ],
      },
    ]);
  });

  it('keeps each page file and asset as git {oid, path}', async () => {
    const content = await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true });
    const blob = (path: string) => git(['rev-parse', `main:${path}`], summaryRepo.path).trim();
    const [welcome, guide, missing, reference] = content.pages;
    expect(welcome?.git).toEqual({ oid: blob('README.md'), path: 'README.md' });
    expect(guide?.git).toEqual({ oid: blob('guide/README.md'), path: 'guide/README.md' });
    expect(guide?.children[1]?.children[0]?.git).toEqual({
      oid: blob('guide/configure/advanced.md'),
      path: 'guide/configure/advanced.md',
    });
    expect(missing?.git).toBeUndefined();
    expect(reference?.git).toBeUndefined();
    expect(content.files.map((file) => ({ name: file.name, git: file.git, bytes: [...file.bytes] }))).toEqual([
      {
        name: 'diagrams/flow.svg',
        git: { oid: blob('.gitbook/assets/diagrams/flow.svg'), path: '.gitbook/assets/diagrams/flow.svg' },
        bytes: [...Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
      },
      {
        name: 'logo.png',
        git: { oid: blob('.gitbook/assets/logo.png'), path: '.gitbook/assets/logo.png' },
        bytes: [0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3],
      },
    ]);
  });

  it('builds the tree from folders when there is no SUMMARY.md, skipping symlinks and dot folders', async () => {
    const repo = await makeBareRepo(dir, 'folders', FOLDER_REPO);
    const content = await importRepository({ url: repo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true });
    expect(shape(content.pages)).toEqual([
      { type: 'document', title: 'Home', slug: 'home', markdown: 'See [the second](/2-b).\n', children: [] },
      // Sorted by name, numbers as numbers: 2-b before 10-a.
      { type: 'document', title: 'Second', slug: '2-b', markdown: '', children: [] },
      { type: 'document', title: '10 a', slug: '10-a', markdown: 'no title\n', children: [] },
      {
        type: 'document',
        title: 'API',
        slug: 'api',
        markdown: '',
        children: [
          { type: 'document', title: 'Auth', slug: 'auth', markdown: 'Back to [API](/api) and [home](/home).\n', children: [] },
        ],
      },
      {
        type: 'group',
        title: 'Tutorials',
        slug: 'tutorials',
        markdown: '',
        children: [
          {
            type: 'group',
            title: 'Advanced',
            slug: 'advanced',
            markdown: '',
            children: [{ type: 'document', title: 'Deep', slug: 'deep', markdown: '', children: [] }],
          },
          { type: 'document', title: 'Basics', slug: 'basics', markdown: '', children: [] },
        ],
      },
    ]);
    expect(content.files).toEqual([]);
  });

  it('follows the root and file names of .gitbook.yaml', async () => {
    const repo = await makeBareRepo(dir, 'rooted', ROOT_CONFIG_REPO);
    const content = await importRepository({ url: repo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true });
    expect(shape(content.pages)).toEqual([
      { type: 'document', title: 'Intro', slug: 'intro', markdown: 'Read [setup](/setup).\n', children: [] },
      { type: 'document', title: 'Setup', slug: 'setup', markdown: '![](.gitbook/assets/shot.png)\n', children: [] },
    ]);
    expect(content.pages[0]?.git?.path).toBe('docs/intro.md');
    expect(content.files.map((file) => [file.name, file.git.path])).toEqual([['shot.png', 'docs/.gitbook/assets/shot.png']]);
  });

  it('reads the content of repoProjectDirectory, with its own .gitbook.yaml', async () => {
    const repo = await makeBareRepo(dir, 'mono', MONOREPO);
    const content = await importRepository(
      { url: repo.fileUrl, ref: 'refs/heads/main', repoProjectDirectory: 'packages/docs' },
      { allowLocal: true },
    );
    expect(shape(content.pages)).toEqual([
      { type: 'document', title: 'Docs home', slug: 'docs-home', markdown: 'See [the guide](/guide).\n', children: [] },
      { type: 'document', title: 'Guide', slug: 'guide', markdown: '', children: [] },
    ]);
    expect(content.files.map((file) => file.git.path)).toEqual(['packages/docs/content/.gitbook/assets/a.txt']);
    // The same repository without a project directory is the monorepo's own readme.
    const whole = await importRepository({ url: repo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true });
    expect(whole.pages[0]?.title).toBe('Monorepo');
  });

  it('imports the branch it is given', async () => {
    const repo = await makeBareRepo(dir, 'branches', { 'README.md': '# Main\n' });
    const other = await makeBareRepo(dir, 'branches-other', { 'README.md': '# Other\n' }, { branch: 'release/v2' });
    const content = await importRepository({ url: other.fileUrl, ref: 'refs/heads/release/v2' }, { allowLocal: true });
    expect(content.pages[0]?.title).toBe('Other');
    expect((await importRepository({ url: repo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true })).pages[0]?.title).toBe(
      'Main',
    );
  });

  it('says which branch is missing', async () => {
    const error = await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/nope' }, { allowLocal: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).code).toBe('branch-not-found');
    expect((error as GitError).message).toBe(`The branch "nope" does not exist in ${summaryRepo.fileUrl}`);
  });

  it('refuses refs that are not branches and project directories outside the repository', async () => {
    for (const ref of ['main', 'refs/tags/v1', 'refs/heads/', 'refs/heads/-x', 'refs/heads/a..b']) {
      await expect(importRepository({ url: summaryRepo.fileUrl, ref }, { allowLocal: true })).rejects.toMatchObject({
        code: 'invalid-ref',
      });
    }
    await expect(
      importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main', repoProjectDirectory: '../up' }, { allowLocal: true }),
    ).rejects.toMatchObject({ code: 'invalid-path' });
    await expect(
      importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main', repoProjectDirectory: 'nowhere' }, { allowLocal: true }),
    ).rejects.toThrow('The directory "nowhere" does not exist in the branch "main"');
  });

  it('refuses file URLs and local addresses without allowLocal, before running git', async () => {
    const log: string[][] = [];
    for (const url of [summaryRepo.fileUrl, 'http://127.0.0.1:9/repo.git', 'https://10.0.0.5/repo.git', 'ssh://git@example.com/r.git']) {
      const error = await importRepository({ url, ref: 'refs/heads/main' }, { log: (entry) => log.push(entry.args) }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OutboundUrlError);
    }
    expect(log.filter((args) => args.includes('clone'))).toEqual([]);
  });

  it('enforces the limits with clear errors', async () => {
    const repo = await makeBareRepo(dir, 'big', {
      'README.md': '# Big\n',
      'a.md': 'a'.repeat(5000),
      'b.md': '# B\n',
      'c.bin': Buffer.alloc(20_000, 7),
    });
    const url = repo.fileUrl;
    const ref = 'refs/heads/main';
    const attempt = (limits: Record<string, number>) =>
      importRepository({ url, ref }, { allowLocal: true, limits }).catch((e: unknown) => e);

    const files = await attempt({ maxFiles: 3 });
    expect(files).toBeInstanceOf(GitLimitError);
    expect((files as GitLimitError).message).toBe('The repository has more than 3 files');

    const size = await attempt({ maxRepositoryBytes: 10_000 });
    expect((size as GitLimitError).code).toBe('repository-too-large');
    expect((size as GitLimitError).message).toBe('The repository is larger than the limit of 10000 bytes');

    const file = await attempt({ maxFileBytes: 1000 });
    expect((file as GitLimitError).code).toBe('file-too-large');
    expect((file as GitLimitError).message).toBe('The file a.md is larger than the limit of 1000 bytes');

    // c.bin is over the per-file limit too, but it is neither a page nor an asset, so it is never read.
    const fine = await attempt({ maxFileBytes: 6000 });
    expect(fine).not.toBeInstanceOf(Error);
  });

  it('removes its temporary clone, after success and after failure', async () => {
    const temp = await mkdtemp(join(dir, 'temp-'));
    await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true, tempDir: temp });
    expect(await readdir(temp)).toEqual([]);
    await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/main' }, { allowLocal: true, tempDir: temp, limits: { maxFiles: 1 } }).catch(
      () => undefined,
    );
    await importRepository({ url: summaryRepo.fileUrl, ref: 'refs/heads/gone' }, { allowLocal: true, tempDir: temp }).catch(
      () => undefined,
    );
    expect(await readdir(temp)).toEqual([]);
  });
});

describe('checkGitSyncTarget', () => {
  it('answers the URL without credentials, the branch and the project directory', async () => {
    await expect(
      checkGitSyncTarget(
        { url: 'https://bot:tok3n@git.example.test/o/docs.git', ref: 'refs/heads/main', repoProjectDirectory: './docs/' },
        { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      ),
    ).resolves.toEqual({ url: 'https://git.example.test/o/docs.git', branch: 'main', projectDirectory: 'docs' });
  });

  it('refuses what the import or export would refuse', async () => {
    await expect(checkGitSyncTarget({ url: 'http://169.254.169.254/r.git', ref: 'refs/heads/main' })).rejects.toBeInstanceOf(
      OutboundUrlError,
    );
    await expect(checkGitSyncTarget({ url: 'https://93.184.215.14/r.git', ref: 'main' })).rejects.toMatchObject({ code: 'invalid-ref' });
    await expect(
      checkGitSyncTarget({ url: 'https://93.184.215.14/r.git', ref: 'refs/heads/main', repoProjectDirectory: '../x' }),
    ).rejects.toMatchObject({ code: 'invalid-path' });
  });
});
