/**
 * Export: the space written as a commit on a branch, GitBook's layout:
 * - the first page is the content root's README.md (when its slug is its title's, so nothing is lost);
 * - a page with children is `<slug>/README.md` and its children live in `<slug>/`; a page without is
 *   `<slug>.md`; a group is a folder `<slug>/` without README.md; link pages exist only in the summary;
 * - SUMMARY.md holds the tree (top-level groups as `## Title` headings), assets go to `.gitbook/assets/`,
 *   reusable contents to `.gitbook/includes/<name>.md` (title in the front matter, inserted in pages by
 *   `{% include "<relative path>" %}`), `.gitbook.yaml` is added when the project has none;
 * - files of pages, assets and reusable contents that no longer exist are removed; nothing else in the
 *   repository is touched.
 * The branch is cloned (or created when it does not exist), committed to and pushed, never force-pushed
 * unless asked.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import {
  joinPath,
  normalizeMarkdown,
  serializeFrontMatter,
  serializeGitbookConfig,
  slugify,
} from './gitbook-format.js';
import { explainMissingBranch, limitsOf, openSyncRemote, type GitSyncOptions } from './import.js';
import { encodePath, formatDestination, rewriteIncludeTags, rewriteLinks, safeDecodeURI, splitDestination } from '../content/markdown/index.js';
import { INCLUDES_DIR, readRepositoryContent, resolveLayout, type ContentLayout } from './repo-content.js';
import { GitError, GitPushRejectedError, branchOfRef, runGit, watchDiskUsage } from './run-git.js';
import { RepoSnapshot } from './snapshot.js';
import type { ExportContent, ExportPage, ExportReusable } from './types.js';

export interface ExportRepositoryInput {
  url: string;
  ref: string;
  commitMessage: string;
  repoProjectDirectory?: string;
  /** Overwrite commits of the branch the space has not seen (a force push). */
  force?: boolean;
  /**
   * The commit the space last synced with. When the branch has moved past it, the export is refused
   * (GitPushRejectedError `remote-moved`) unless `force`: the new commits would be overwritten.
   */
  expectedOid?: string;
}

export interface ExportOptions extends GitSyncOptions {
  author?: { name: string; email: string };
  /**
   * Folder to clone into (must not exist, or be empty); kept afterwards, e.g. as a repository cache.
   * Without it a temporary folder is used and removed.
   */
  workDir?: string;
}

export interface ExportResult {
  /** The commit at the head of the branch after the export. */
  oid: string;
  /** False when the branch already held exactly this content (nothing was committed or pushed). */
  changed: boolean;
}

const DEFAULT_AUTHOR = { name: 'Quire', email: 'quire@localhost' };

interface Placed {
  page: ExportPage;
  /** Repository path of the page's markdown file, when it has one. */
  filePath?: string;
  /** The page's path in the space (slugs joined), which links use. */
  pagePath: string;
  children: Placed[];
}

function isDocument(page: ExportPage): boolean {
  return (page.type ?? 'document') === 'document';
}

/** Decides where every page goes. Names are unique per folder, and never clash with README/SUMMARY files. */
function placePages(pages: readonly ExportPage[], layout: ContentLayout): Placed[] {
  const reserved = new Set(['readme.md', 'summary.md', layout.config.readme.toLowerCase(), layout.config.summary.toLowerCase()]);
  const place = (list: readonly ExportPage[], dir: string, parentPath: string, top: boolean): Placed[] => {
    const taken = new Set<string>();
    const claim = (base: string, suffix: string): string => {
      let name = base;
      for (let n = 2; taken.has(`${name}${suffix}`.toLowerCase()) || reserved.has(`${name}${suffix}`.toLowerCase()); n += 1) {
        name = `${base}-${n}`;
      }
      taken.add(`${name}${suffix}`.toLowerCase());
      return name;
    };
    return list.map((page, index) => {
      const name = slugify(page.slug);
      const pagePath = parentPath === '' ? page.slug : `${parentPath}/${page.slug}`;
      const children = page.children ?? [];
      const placed: Placed = { page, pagePath, children: [] };
      let childDir: string;
      if (top && index === 0 && isDocument(page) && slugify(page.title) === page.slug) {
        placed.filePath = layout.readmePath;
        childDir = joinPath(dir, claim(name, ''));
      } else if (isDocument(page) && children.length === 0) {
        placed.filePath = joinPath(dir, `${claim(name, '.md')}.md`);
        childDir = dir;
      } else {
        childDir = joinPath(dir, claim(name, ''));
        if (isDocument(page)) placed.filePath = joinPath(childDir, 'README.md');
      }
      placed.children = place(children, childDir, pagePath, false);
      return placed;
    });
  };
  return place(pages, layout.root, '', true);
}

function flatten(placed: readonly Placed[], into: Placed[] = []): Placed[] {
  for (const item of placed) {
    into.push(item);
    flatten(item.children, into);
  }
  return into;
}

function escapeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[\\`*_[\]<>&#]/g, (c) => `\\${c}`);
}

function anchor(page: ExportPage): string {
  return slugify(page.title) === page.slug ? '' : ` <a href="#${page.slug}" id="${page.slug}"></a>`;
}

function relativeLink(fromDir: string, target: string): string {
  return encodePath(posix.relative(fromDir === '' ? '.' : fromDir, target) || posix.basename(target));
}

function summaryOf(placed: readonly Placed[], summaryDir: string): string {
  const lines: string[] = ['# Table of contents', ''];
  const item = (entry: Placed, depth: number) => {
    const indent = '  '.repeat(depth);
    const { page } = entry;
    const title = escapeText(page.title) || 'Untitled';
    if (entry.filePath) lines.push(`${indent}* [${title}](${relativeLink(summaryDir, entry.filePath)})`);
    else if (page.type === 'link' && page.href) lines.push(`${indent}* [${title}](${formatDestination(page.href)})`);
    else lines.push(`${indent}* ${title}${anchor(page)}`);
    for (const child of entry.children) item(child, depth + 1);
  };
  // `## Title` groups own every item below them, so headings are used only when no plain page follows one.
  const firstGroup = placed.findIndex((entry) => entry.page.type === 'group');
  const headings = firstGroup !== -1 && placed.slice(firstGroup).every((entry) => entry.page.type === 'group');
  for (const [index, entry] of placed.entries()) {
    if (headings && index >= firstGroup) {
      if (lines[lines.length - 1] !== '') lines.push('');
      lines.push(`## ${escapeText(entry.page.title) || 'Untitled'}${anchor(entry.page)}`, '');
      for (const child of entry.children) item(child, 0);
    } else {
      item(entry, 0);
    }
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

function safeAssetName(name: string): string {
  const cleaned = posix.normalize(name.replace(/\\/g, '/')).replace(/^\/+/, '');
  if (cleaned === '' || cleaned === '.' || cleaned.split('/').some((segment) => segment === '..' || segment === '')) {
    throw new GitError('invalid-path', `The file name "${name}" cannot be written to the repository`);
  }
  return cleaned;
}

/**
 * Where each reusable content is written: the file it was imported from when it has one (so a round trip
 * keeps its name), else `<slug of its title>.md`, unique in `.gitbook/includes/`.
 */
function placeReusables(reusables: readonly ExportReusable[], layout: ContentLayout): { placed: { reusable: ExportReusable; path: string }[]; byId: Map<string, string> } {
  const taken = new Set<string>();
  const placed: { reusable: ExportReusable; path: string }[] = [];
  const byId = new Map<string, string>();
  const kept = (name: string | undefined) => (name !== undefined && /^[\w.-]+\.md$/i.test(name) && !taken.has(name.toLowerCase()) ? name : undefined);
  for (const reusable of reusables) {
    let name = kept(reusable.name);
    for (let n = 1; name === undefined; n++) name = kept(`${slugify(reusable.title) || 'reusable'}${n === 1 ? '' : `-${n}`}.md`);
    taken.add(name.toLowerCase());
    const path = joinPath(layout.includesDir, name);
    placed.push({ reusable, path });
    if (reusable.id) byId.set(reusable.id, path);
  }
  return { placed, byId };
}

/** Every file the export writes, by repository path. */
function planFiles(content: ExportContent, layout: ContentLayout): Map<string, Buffer> {
  const placed = placePages(content.pages, layout);
  const all = flatten(placed);
  const byPath = new Map<string, Placed>();
  const byId = new Map<string, Placed>();
  for (const entry of all) {
    if (!byPath.has(entry.pagePath)) byPath.set(entry.pagePath, entry);
    if (entry.page.id) byId.set(entry.page.id, entry);
  }
  const files = new Map<string, Buffer>();
  const includes = placeReusables(content.reusables ?? [], layout);

  // Links as the content core writes them, made relative to the file in `dir` that holds them.
  const rewriteFrom = (dir: string) => (url: string): string | undefined => {
    const byIdMatch = /^\/pages\/([^/?#]+)(.*)$/.exec(url);
    const byIdTarget = byIdMatch ? byId.get(safeDecodeURI(byIdMatch[1] ?? '')) : undefined;
    if (byIdTarget?.filePath) return `${relativeLink(dir, byIdTarget.filePath)}${byIdMatch?.[2] ?? ''}`;
    const { path, suffix } = splitDestination(url);
    const asset = /^(?:\/|(?:\.\.\/)*)?\.gitbook\/assets\/(.+)$/.exec(path);
    if (asset) {
      try {
        return `${relativeLink(dir, joinPath(layout.assetsDir, safeAssetName(safeDecodeURI(asset[1] ?? ''))))}${suffix}`;
      } catch {
        return undefined;
      }
    }
    if (path.startsWith('/') && !path.startsWith('//')) {
      const target = byPath.get(safeDecodeURI(path.slice(1)).replace(/\/+$/, ''));
      if (target?.filePath) return `${relativeLink(dir, target.filePath)}${suffix}`;
    }
    return undefined;
  };

  const writeMarkdown = (markdown: string, dir: string): string => {
    // Includes name a reusable content by id (`/reusable-contents/<id>`, the content core's form) or by its
    // file from the space root (`.gitbook/includes/<name>`, the import's); the file names it relative to `dir`.
    const withIncludes = rewriteIncludeTags(markdown, (target) => {
      const byId = /^\/reusable-contents\/(.+)$/.exec(target);
      const path = byId ? includes.byId.get(byId[1] ?? '') : target.startsWith(`${INCLUDES_DIR}/`) ? joinPath(layout.includesDir, target.slice(INCLUDES_DIR.length + 1)) : undefined;
      return path === undefined ? undefined : relativeLink(dir, path);
    });
    return rewriteLinks(withIncludes, rewriteFrom(dir));
  };

  for (const entry of all) {
    if (!entry.filePath) continue;
    const dir = posix.dirname(entry.filePath) === '.' ? '' : posix.dirname(entry.filePath);
    const { page } = entry;
    const markdown = normalizeMarkdown(page.markdown ?? '');
    const body = markdown === '' ? '' : `\n${writeMarkdown(markdown, dir)}`;
    const meta = {
      ...(page.description ? { description: page.description } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      ...(page.hidden ? { hidden: true } : {}),
    };
    const title = page.title.replace(/\s+/g, ' ').trim() || 'Untitled';
    files.set(entry.filePath, Buffer.from(`${serializeFrontMatter(meta)}# ${title}\n${body}`, 'utf8'));
  }

  for (const file of content.files ?? []) {
    files.set(joinPath(layout.assetsDir, safeAssetName(file.name)), Buffer.from(file.bytes));
  }
  for (const { reusable, path } of includes.placed) {
    const markdown = normalizeMarkdown(reusable.markdown);
    const body = writeMarkdown(markdown, layout.includesDir);
    files.set(path, Buffer.from(`${serializeFrontMatter({ title: reusable.title.replace(/\s+/g, ' ').trim() || 'Untitled' })}${body}`, 'utf8'));
  }
  const summaryDir = posix.dirname(layout.summaryPath) === '.' ? '' : posix.dirname(layout.summaryPath);
  files.set(layout.summaryPath, Buffer.from(summaryOf(placed, summaryDir), 'utf8'));
  if (!layout.hasConfig) {
    files.set(layout.configPath, Buffer.from(serializeGitbookConfig({ ...layout.config, root: '' }), 'utf8'));
  }
  return files;
}

async function isEmptyOrMissing(path: string): Promise<boolean> {
  try {
    return (await readdir(path)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Removes folders left empty under `dir` by deleted pages (git does not keep empty folders anyway). */
async function pruneEmptyDirs(workDir: string, paths: Iterable<string>): Promise<void> {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = posix.dirname(path); dir !== '.' && dir !== ''; dir = posix.dirname(dir)) dirs.add(dir);
  }
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      if ((await readdir(join(workDir, dir))).length === 0) await rm(join(workDir, dir), { recursive: false, force: true });
    } catch {
      // Not there or not empty.
    }
  }
}

export async function exportRepository(
  input: ExportRepositoryInput,
  content: ExportContent,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const limits = limitsOf(options);
  const branch = await branchOfRef(input.ref);
  const commitMessage = input.commitMessage.trim();
  if (commitMessage === '') throw new GitError('command-failed', 'The commit message is empty');
  const remote = await openSyncRemote(input.url, options);
  const run = { timeoutMs: limits.timeoutMs, ...(options.log ? { log: options.log } : {}) };
  const author = options.author ?? DEFAULT_AUTHOR;

  const ownsWorkDir = options.workDir === undefined;
  const workDir = options.workDir ?? (await mkdtemp(join(options.tempDir ?? tmpdir(), 'quire-export-')));
  if (!ownsWorkDir && !(await isEmptyOrMissing(workDir))) {
    throw new GitError('invalid-path', 'The export folder must be empty');
  }
  try {
    const listing = await runGit(['ls-remote', '--heads', '--', remote.url, `refs/heads/${branch}`], { ...run, remote });
    const remoteHead = listing.stdout
      .toString('utf8')
      .split('\n')
      .map((line) => line.split('\t'))
      .find(([, ref]) => ref === `refs/heads/${branch}`)?.[0];
    if (remoteHead && input.expectedOid && remoteHead !== input.expectedOid && !input.force) {
      throw new GitPushRejectedError(
        'remote-moved',
        `The branch "${branch}" of ${remote.url} has commits that are not in the space (it is at ${remoteHead.slice(0, 12)}, ` +
          `the space last synced ${input.expectedOid.slice(0, 12)}). Import them first, or export with force`,
      );
    }

    let layout: ContentLayout;
    let ownedPaths = new Set<string>();
    if (remoteHead) {
      const controller = new AbortController();
      // A checkout is the pack plus the files, so twice the repository limit.
      const stopWatching = watchDiskUsage(workDir, limits.maxRepositoryBytes * 2, controller);
      try {
        await runGit(
          // Symlinks are checked out as plain files: writing a page through `docs -> /etc` must be impossible.
          ['clone', '--depth', '1', '--single-branch', '--no-tags', '--branch', branch, '--config', 'core.symlinks=false', '--', remote.url, workDir],
          { ...run, remote, signal: controller.signal },
        );
      } catch (error) {
        throw explainMissingBranch(error, branch, remote);
      } finally {
        stopWatching();
      }
      const snapshot = await RepoSnapshot.load(workDir, 'HEAD', limits, run);
      const previous = await readRepositoryContent(snapshot, input.repoProjectDirectory);
      layout = previous.layout;
      ownedPaths = previous.ownedPaths;
    } else {
      await mkdir(workDir, { recursive: true });
      await runGit(['init', '-q', `--initial-branch=${branch}`, workDir], run);
      await runGit(['config', 'core.symlinks', 'false'], { ...run, cwd: workDir });
      // The remote is recorded without credentials, like a clone's.
      await runGit(['remote', 'add', 'origin', remote.url], { ...run, cwd: workDir });
      layout = await resolveLayout(undefined, input.repoProjectDirectory);
    }

    const planned = planFiles(content, layout);
    for (const path of ownedPaths) {
      if (!planned.has(path)) await unlink(join(workDir, path)).catch(() => undefined);
    }
    await pruneEmptyDirs(workDir, ownedPaths);
    for (const [path, bytes] of planned) {
      const target = join(workDir, path);
      const current = await readFile(target).catch(() => undefined);
      if (current?.equals(bytes)) continue;
      try {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, bytes);
      } catch {
        throw new GitError('invalid-path', `Could not write ${path}: a file of the repository is in the way`);
      }
    }

    await runGit(['add', '-A', '--', '.'], { ...run, cwd: workDir });
    const status = (await runGit(['status', '--porcelain'], { ...run, cwd: workDir })).stdout.toString('utf8');
    if (status.trim() === '' && remoteHead) return { oid: remoteHead, changed: false };

    await runGit(['commit', '-q', '--no-verify', '--allow-empty', '-F', '-'], {
      ...run,
      cwd: workDir,
      input: commitMessage,
      config: { 'user.name': author.name, 'user.email': author.email },
    });
    await runGit(['push', ...(input.force ? ['--force'] : []), 'origin', `HEAD:refs/heads/${branch}`], {
      ...run,
      cwd: workDir,
      remote,
    });
    const oid = (await runGit(['rev-parse', 'HEAD'], { ...run, cwd: workDir })).stdout.toString('utf8').trim();
    return { oid, changed: true };
  } finally {
    if (ownsWorkDir) await rm(workDir, { recursive: true, force: true });
  }
}

