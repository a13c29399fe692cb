/**
 * The plain structures Git sync exchanges with the content core: what an import produces (and the content
 * core turns into a revision), and what an export writes.
 *
 * Links in `markdown` follow one convention in both directions, so that they survive a round trip:
 * - a link to another page is the page's path from the space root with a leading slash, plus any anchor:
 *   `/getting-started/install#options` (`path` = the slugs of the page and its ancestors joined by `/`);
 * - a link to an asset is `.gitbook/assets/<name>` (percent-encoded), relative to the space root;
 * - an inserted reusable content is an include tag naming its file from the space root,
 *   `{% include ".gitbook/includes/<name>" %}` (in the content core: `/reusable-contents/<id>`).
 * Import turns repository-relative file links into these; export turns them back into file links.
 */

export interface GitObjectRef {
  /** The blob sha of the file. */
  oid: string;
  /** Path of the file from the repository root. */
  path: string;
}

export type ImportedPageType = 'document' | 'group' | 'link';

export interface ImportedPage {
  type: ImportedPageType;
  title: string;
  /** Unique among its siblings. */
  slug: string;
  /** Without front matter and without the `# Title` line; empty for groups and links. */
  markdown: string;
  description?: string;
  icon?: string;
  hidden?: boolean;
  /** Link pages only: where the entry of the table of contents points. */
  href?: string;
  /** The file the page came from; absent for groups, links and pages whose file does not exist. */
  git?: GitObjectRef;
  children: ImportedPage[];
}

export interface ImportedFile {
  /** Path under `.gitbook/assets/`, e.g. `diagram.png` or `screens/login.png`. */
  name: string;
  bytes: Buffer;
  git: GitObjectRef;
}

/** A reusable content: a file under `.gitbook/includes/`, its title in its front matter. */
export interface ImportedReusable {
  /** Path under `.gitbook/includes/`, e.g. `support.md`. */
  name: string;
  title: string;
  markdown: string;
  git: GitObjectRef;
}

export interface ImportedContent {
  commit: { oid: string; message: string };
  pages: ImportedPage[];
  files: ImportedFile[];
  reusables?: ImportedReusable[];
  /**
   * The depth of the parse tree of markdown texts of `pages` and `reusables`, keyed by the text itself, from
   * the parse that read their links (a rewritten text only when the rewriting kept its tree's shape): the
   * content limits' depth check uses it instead of parsing the same text again.
   */
  treeDepths?: ReadonlyMap<string, number>;
}

/** A page to export. An ImportedPage is one; `id` lets `/pages/<id>` links be turned into file links too. */
export interface ExportPage {
  id?: string;
  type?: ImportedPageType;
  title: string;
  slug: string;
  markdown?: string;
  description?: string;
  icon?: string;
  hidden?: boolean;
  href?: string;
  children?: readonly ExportPage[];
}

export interface ExportFile {
  name: string;
  bytes: Uint8Array;
}

/** A reusable content to export; `id` lets `/reusable-contents/<id>` includes be turned into its file. */
export interface ExportReusable {
  id?: string;
  /** Its file under `.gitbook/includes/` (kept from an import); made from the title when absent. */
  name?: string;
  title: string;
  markdown: string;
}

export interface ExportContent {
  pages: readonly ExportPage[];
  files?: readonly ExportFile[];
  reusables?: readonly ExportReusable[];
}
