import type { RenderedFile } from '@quire/render';
import type { SiteTree } from '../site/tree.js';
import type { RevisionFile } from '../site/types.js';

/*
 * The addresses the renderer resolves links and images to. File lists and trees are kept and never changed,
 * so each map is made once per list (and base path) or tree, not on every render of their pages; the maps
 * are held weakly, so they go when the caches drop their list or tree.
 */

const fileMaps = new WeakMap<RevisionFile[], Map<string, Record<string, RenderedFile>>>();

/** Files by `id:`, `name:` (the first of that name) and `path:` (their Git path), served under `basePath`. */
export function fileMap(files: RevisionFile[], basePath: string): Record<string, RenderedFile> {
  let byBase = fileMaps.get(files);
  if (!byBase) fileMaps.set(files, (byBase = new Map()));
  const kept = byBase.get(basePath);
  if (kept) return kept;
  const out: Record<string, RenderedFile> = {};
  for (const file of files) {
    const rendered: RenderedFile = { href: `${basePath}/~files/${encodeURIComponent(file.id)}`, name: file.name, ...(file.dimensions ?? {}) };
    out[`id:${file.id}`] = rendered;
    out[`name:${file.name}`] ??= rendered;
    if (file.git?.path) out[`path:${file.git.path}`] = rendered;
  }
  byBase.set(basePath, out);
  return out;
}

const pageMaps = new WeakMap<SiteTree, Record<string, string>>();

/** Page addresses by `id:` and `path:`. */
export function pageMap(tree: SiteTree): Record<string, string> {
  const kept = pageMaps.get(tree);
  if (kept) return kept;
  const out: Record<string, string> = {};
  for (const entry of tree.pages) {
    out[`id:${entry.page.id}`] = entry.href;
    out[`path:${entry.path}`] = entry.href;
  }
  pageMaps.set(tree, out);
  return out;
}
