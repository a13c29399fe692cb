/**
 * Reads the content of a space out of the files of a commit, the GitBook way:
 * - `<project>/.gitbook.yaml` may move the content root (`root`) and rename `README.md` / `SUMMARY.md`;
 * - with a SUMMARY.md, its nested lists of links are the page tree (`## Title` headings start group pages,
 *   list items without a link are groups too, links to sites are link pages);
 * - without one, folders are the tree: a folder is a page made from its README.md, or a group without one,
 *   and its files and subfolders (sorted by name) are the children;
 * - titles come from the summary's link text, else from the page's `# heading`, else from the file name;
 * - files under `<root>/.gitbook/assets/` are the space's files;
 * - Markdown files under `<root>/.gitbook/includes/` are its reusable contents (title in the front matter),
 *   which pages insert with `{% include "<relative path>" %}`.
 * Export uses it too, to know which files of the branch belong to pages before rewriting them.
 */
import { posix } from 'node:path';
import type { Nodes, Root } from 'mdast';
import {
  DEFAULT_CONFIG,
  humanize,
  joinPath,
  normalizeMarkdown,
  parseGitbookConfig,
  repoPath,
  slugify,
  splitFrontMatter,
  takeTitle,
  uniqueSlug,
  type GitbookConfig,
} from './gitbook-format.js';
import {
  applyLinkRewritesKeepingShape,
  encodePath,
  isRelativeDestination,
  linkDestinationsAndDepthsInBatches,
  rewriteIncludeTags,
  safeDecodeURI,
  splitDestination,
  type LinksAndDepth,
} from '../content/markdown/index.js';
import type { RepoSnapshot } from './snapshot.js';
import { parseSummary } from './summary-parse.js';
import type { ImportedFile, ImportedPage, ImportedReusable } from './types.js';

export interface ContentLayout {
  /** The project directory (`repoProjectDirectory`), from the repository root; '' for the root. */
  projectDir: string;
  configPath: string;
  hasConfig: boolean;
  config: GitbookConfig;
  /** The content root, from the repository root. */
  root: string;
  readmePath: string;
  summaryPath: string;
  assetsDir: string;
  includesDir: string;
}

export const ASSETS_DIR = '.gitbook/assets';
export const INCLUDES_DIR = '.gitbook/includes';

export async function resolveLayout(snapshot: RepoSnapshot | undefined, projectDirectory?: string): Promise<ContentLayout> {
  const projectDir = repoPath(projectDirectory ?? '', 'project directory');
  const configPath = joinPath(projectDir, '.gitbook.yaml');
  const hasConfig = snapshot?.has(configPath) ?? false;
  const config = hasConfig && snapshot ? parseGitbookConfig(await snapshot.readText(configPath)) : { ...DEFAULT_CONFIG };
  const root = repoPath(joinPath(projectDir, repoPath(config.root, 'root of .gitbook.yaml')), 'root of .gitbook.yaml');
  return {
    projectDir,
    configPath,
    hasConfig,
    config,
    root,
    readmePath: joinPath(root, repoPath(config.readme, 'readme of .gitbook.yaml')),
    summaryPath: joinPath(root, repoPath(config.summary, 'summary of .gitbook.yaml')),
    assetsDir: joinPath(root, ASSETS_DIR),
    includesDir: joinPath(root, INCLUDES_DIR),
  };
}

interface Draft {
  type: ImportedPage['type'];
  /** From the summary; documents without one take their `# heading` or file name. */
  title?: string;
  /** A slug given explicitly (summary anchors, folder names); otherwise derived from the file or title. */
  slug?: string;
  filePath?: string;
  href?: string;
  children: Draft[];
}

export interface RepositoryContent {
  layout: ContentLayout;
  pages: ImportedPage[];
  files: ImportedFile[];
  reusables: ImportedReusable[];
  /** Every file that belongs to the content: page files, assets, reusable contents and the summary. */
  ownedPaths: Set<string>;
  /** The parse-tree depth of page and reusable markdown as read (see `ImportedContent.treeDepths`). */
  treeDepths: Map<string, number>;
}

function dirOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === '.' ? '' : dir;
}

function isMarkdown(path: string): boolean {
  return /\.md$/i.test(path);
}

function isUnder(path: string, dir: string): boolean {
  return dir === '' || path.startsWith(`${dir}/`);
}

function relativeTo(path: string, dir: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

/** Dot folders (`.github/`, `.gitbook/`) hold no pages. */
function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

function plainText(node: Nodes): string {
  if (node.type === 'text' || node.type === 'inlineCode') return node.value;
  if (node.type === 'html') return '';
  if ('children' in node) return node.children.map((child) => plainText(child as Nodes)).join('');
  return '';
}

/** GitBook keeps a group's slug in its heading as `<a href="#slug" id="slug"></a>`. */
function anchorId(node: Nodes): string | undefined {
  if (node.type === 'html') return /\bid="([^"]+)"/.exec(node.value)?.[1];
  if ('children' in node) {
    for (const child of node.children) {
      const id = anchorId(child as Nodes);
      if (id) return id;
    }
  }
  return undefined;
}

function firstLink(node: Nodes): (Nodes & { type: 'link' }) | undefined {
  if (node.type === 'link') return node;
  if ('children' in node) {
    for (const child of node.children) {
      const link = firstLink(child as Nodes);
      if (link) return link;
    }
  }
  return undefined;
}

function cleanTitle(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function summaryDrafts(tree: Root, summaryDir: string, snapshot: RepoSnapshot): Draft[] {
  const top: Draft[] = [];
  let group: Draft | undefined;

  const resolveFile = (url: string): string | undefined => {
    const { path } = splitDestination(url);
    if (path === '') return undefined;
    let target: string;
    try {
      target = repoPath(posix.join(summaryDir, safeDecodeURI(path)));
    } catch {
      return undefined; // outside the repository: treated as a missing file
    }
    if (!isMarkdown(target) && snapshot.has(joinPath(target, 'README.md'))) return joinPath(target, 'README.md');
    return target;
  };

  const fromItem = (item: Nodes): Draft | undefined => {
    if (item.type !== 'listItem') return undefined;
    const paragraph = item.children.find((child) => child.type === 'paragraph');
    const children = item.children
      .filter((child) => child.type === 'list')
      .flatMap((list) => list.children.map(fromItem).filter((draft): draft is Draft => draft !== undefined));
    if (!paragraph) return children.length > 0 ? { type: 'group', title: 'Untitled', children } : undefined;
    const link = firstLink(paragraph);
    if (!link) {
      const slug = anchorId(paragraph);
      return { type: 'group', title: cleanTitle(plainText(paragraph)) || 'Untitled', ...(slug ? { slug } : {}), children };
    }
    const title = cleanTitle(plainText(link)) || undefined;
    if (!isRelativeDestination(link.url)) {
      return { type: 'link', title: title ?? link.url, href: link.url, children };
    }
    const filePath = resolveFile(link.url);
    return { type: 'document', ...(title ? { title } : {}), ...(filePath ? { filePath } : {}), children };
  };

  for (const node of tree.children) {
    if (node.type === 'heading') {
      if (node.depth === 1) continue; // "Table of contents"
      const slug = anchorId(node);
      group = { type: 'group', title: cleanTitle(plainText(node)) || 'Untitled', ...(slug ? { slug } : {}), children: [] };
      top.push(group);
    } else if (node.type === 'list') {
      for (const item of node.children) {
        const draft = fromItem(item);
        if (draft) (group ? group.children : top).push(draft);
      }
    }
  }
  return top;
}

function folderDrafts(layout: ContentLayout, snapshot: RepoSnapshot): Draft[] {
  const markdownPaths = [...snapshot.entries.keys()].filter(
    (path) =>
      isMarkdown(path) &&
      isUnder(path, layout.root) &&
      path !== layout.summaryPath &&
      !hasDotSegment(relativeTo(path, layout.root)),
  );
  const compare = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' }) || (a < b ? -1 : 1);
  const folderReadme = (dir: string): string | undefined =>
    markdownPaths.find((path) => path === joinPath(dir, 'README.md')) ??
    markdownPaths.find((path) => path.toLowerCase() === joinPath(dir, 'README.md').toLowerCase());

  const build = (dir: string, skip: string | undefined): Draft[] => {
    const names = new Map<string, 'file' | 'dir'>();
    for (const path of markdownPaths) {
      if (!isUnder(path, dir) || path === skip) continue;
      const rest = relativeTo(path, dir);
      const slash = rest.indexOf('/');
      if (slash === -1) names.set(rest, 'file');
      else names.set(rest.slice(0, slash), 'dir');
    }
    const drafts: Draft[] = [];
    for (const name of [...names.keys()].sort(compare)) {
      const path = joinPath(dir, name);
      if (names.get(name) === 'file') {
        drafts.push({ type: 'document', filePath: path, children: [] });
        continue;
      }
      const readme = folderReadme(path);
      const children = build(path, readme);
      if (readme) drafts.push({ type: 'document', filePath: readme, slug: slugify(name), children });
      else drafts.push({ type: 'group', title: humanize(name), slug: slugify(name), children });
    }
    return drafts;
  };

  const rootReadme = snapshot.has(layout.readmePath) ? layout.readmePath : undefined;
  const drafts = build(layout.root, rootReadme);
  if (rootReadme) drafts.unshift({ type: 'document', filePath: rootReadme, children: [] });
  return drafts;
}

function collectFiles(drafts: readonly Draft[], into: Set<string>): Set<string> {
  for (const draft of drafts) {
    if (draft.filePath) into.add(draft.filePath);
    collectFiles(draft.children, into);
  }
  return into;
}

/** Builds the page tree and files of the content found in `snapshot`. */
export async function readRepositoryContent(snapshot: RepoSnapshot, projectDirectory?: string): Promise<RepositoryContent> {
  const layout = await resolveLayout(snapshot, projectDirectory);
  let drafts: Draft[];
  if (snapshot.has(layout.summaryPath)) {
    const summary = await snapshot.readText(layout.summaryPath);
    drafts = summaryDrafts(parseSummary(summary), dirOf(layout.summaryPath), snapshot);
    if (snapshot.has(layout.readmePath) && !collectFiles(drafts, new Set()).has(layout.readmePath)) {
      // The root readme is the space's first page, listed in the summary or not.
      drafts.unshift({ type: 'document', filePath: layout.readmePath, children: [] });
    }
  } else {
    drafts = folderDrafts(layout, snapshot);
  }

  const pageFiles = [...collectFiles(drafts, new Set())].filter((path) => snapshot.has(path));
  const assetPaths = [...snapshot.entries.keys()].filter((path) => isUnder(path, layout.assetsDir)).sort();
  const includePaths = [...snapshot.entries.keys()].filter((path) => isUnder(path, layout.includesDir) && isMarkdown(path)).sort();
  const contents = await snapshot.readMany([...pageFiles, ...assetPaths, ...includePaths]);

  const fileToPagePath = new Map<string, string>();
  const pageDirs = new Map<ImportedPage, string>();

  const materialize = (siblings: readonly Draft[], parentPath: string): ImportedPage[] => {
    const taken = new Set<string>();
    return siblings.map((draft) => {
      const page: ImportedPage = { type: draft.type, title: draft.title ?? '', slug: '', markdown: '', children: [] };
      let slugBase = draft.slug;
      const entry = draft.filePath ? snapshot.entries.get(draft.filePath) : undefined;
      if (draft.type === 'document' && draft.filePath) {
        const base = posix.basename(draft.filePath);
        const isReadme = base.toLowerCase() === 'readme.md' || draft.filePath === layout.readmePath;
        const raw = entry ? normalizeMarkdown((contents.get(draft.filePath) ?? Buffer.alloc(0)).toString('utf8')) : '';
        const { meta, body } = splitFrontMatter(raw);
        const titled = takeTitle(normalizeMarkdown(body));
        page.markdown = normalizeMarkdown(titled.body);
        if (meta.description !== undefined) page.description = meta.description;
        if (meta.icon !== undefined) page.icon = meta.icon;
        if (meta.hidden) page.hidden = true;
        const folder = posix.basename(dirOf(draft.filePath));
        page.title =
          draft.title ??
          titled.title ??
          humanize(isReadme ? (draft.filePath === layout.readmePath ? 'Introduction' : folder) : base);
        if (slugBase === undefined) {
          if (draft.filePath === layout.readmePath || (isReadme && dirOf(draft.filePath) === layout.root)) {
            slugBase = slugify(page.title);
          } else {
            slugBase = slugify(isReadme ? folder : base.replace(/\.md$/i, ''));
          }
        }
        if (entry) {
          page.git = { oid: entry.oid, path: entry.path };
          pageDirs.set(page, dirOf(entry.path));
        }
      } else if (draft.type === 'link' && draft.href) {
        page.href = draft.href;
      }
      if (page.title === '') page.title = 'Untitled';
      page.slug = uniqueSlug(slugify(slugBase ?? page.title), taken);
      const path = parentPath === '' ? page.slug : `${parentPath}/${page.slug}`;
      if (draft.filePath && entry && !fileToPagePath.has(draft.filePath)) fileToPagePath.set(draft.filePath, path);
      page.children = materialize(draft.children, path);
      return page;
    });
  };
  const pages = materialize(drafts, '');

  const rewriteFrom = (dir: string) => (url: string) => {
    if (!isRelativeDestination(url)) return undefined;
    const { path, suffix } = splitDestination(url);
    if (path === '') return undefined;
    let target: string;
    try {
      target = repoPath(posix.join(dir, safeDecodeURI(path)));
    } catch {
      return undefined;
    }
    const pagePath = fileToPagePath.get(target) ?? fileToPagePath.get(joinPath(target, 'README.md'));
    if (pagePath !== undefined) return `/${pagePath}${suffix}`;
    if (isUnder(target, layout.assetsDir) && target !== layout.assetsDir) {
      return `${ASSETS_DIR}/${encodePath(relativeTo(target, layout.assetsDir))}${suffix}`;
    }
    return undefined;
  };
  // An include names its file relative to the page; from the space root it is `.gitbook/includes/<name>`.
  const includeFrom = (dir: string) => (target: string) => {
    let path: string;
    try {
      path = repoPath(posix.join(dir, safeDecodeURI(target)));
    } catch {
      return undefined;
    }
    return includePaths.includes(path) ? `${INCLUDES_DIR}/${relativeTo(path, layout.includesDir)}` : undefined;
  };

  const reusables: ImportedReusable[] = includePaths.map((path) => {
    const { meta, body } = splitFrontMatter(normalizeMarkdown((contents.get(path) ?? Buffer.alloc(0)).toString('utf8')));
    return {
      name: relativeTo(path, layout.includesDir),
      title: meta.title ?? humanize(posix.basename(path)),
      markdown: normalizeMarkdown(body),
      git: { oid: snapshot.entries.get(path)?.oid ?? '', path },
    };
  });

  // Links and includes are rewritten from where each file is; the pages are parsed for their link
  // destinations all together (in parallel threads when they are many), as `rewriteLinks` would one by one.
  // That one parse also measures each tree's depth, which the content limits check; when the rewriting
  // provably keeps the tree's shape, the depth is kept with the text it now holds, so that the check does
  // not parse it again. Each batch of pages is rewritten here as soon as it is parsed, while the threads
  // parse the next.
  const toRewrite: Array<{ holder: { markdown: string }; dir: string }> = [];
  for (const [page, dir] of pageDirs) if (page.markdown !== '') toRewrite.push({ holder: page, dir });
  for (const reusable of reusables) if (reusable.markdown !== '') toRewrite.push({ holder: reusable, dir: layout.includesDir });
  const treeDepths = new Map<string, number>();
  const rewrite = ({ holder, dir }: (typeof toRewrite)[number], found: LinksAndDepth | undefined): void => {
    if (!found) {
      holder.markdown = rewriteIncludeTags(holder.markdown, includeFrom(dir));
      return;
    }
    const linked = applyLinkRewritesKeepingShape(holder.markdown, found.destinations, rewriteFrom(dir));
    holder.markdown = rewriteIncludeTags(linked.markdown, includeFrom(dir));
    // An include rewritten changes paragraph text, which may change the tree: that text is parsed again.
    if (linked.sameShape && holder.markdown === linked.markdown) treeDepths.set(holder.markdown, found.depth);
  };
  await linkDestinationsAndDepthsInBatches(
    toRewrite.map(({ holder }) => holder.markdown),
    { onBatch: (offset, found) => found.forEach((links, index) => rewrite(toRewrite[offset + index]!, links ?? undefined)) },
  );

  const files: ImportedFile[] = assetPaths.map((path) => {
    const entry = snapshot.entries.get(path);
    return {
      name: relativeTo(path, layout.assetsDir),
      bytes: contents.get(path) ?? Buffer.alloc(0),
      git: { oid: entry?.oid ?? '', path },
    };
  });

  const ownedPaths = new Set<string>([...pageFiles, ...assetPaths, ...includePaths]);
  if (snapshot.has(layout.summaryPath)) ownedPaths.add(layout.summaryPath);
  return { layout, pages, files, reusables, ownedPaths, treeDepths };
}
