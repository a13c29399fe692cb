import type { ChangeRequestConflict } from '@quire/api-types';
import { lazyModule } from '../lazy-module.js';
import { PAGE_FIELD_NAMES, readMarkdown, type FileObject, type PageFields, type TreeWriter } from './objects.js';
import { mergeReusables } from './merge-reusables.js';
import { sameValue, uniqueSlug, WorkingTree, type PageNode, type WorkingTreeOptions } from './tree.js';

/** Line-level three-way merge, loaded on first merge. */
const diff3 = lazyModule<typeof import('node-diff3')>('node-diff3');

/*
 * Three-way merge of revisions: base (where the change request started, or was last updated from main),
 * ours (the change request) and theirs (the space's main content). It serves both the merge of a change
 * request into main and the update of a change request from main; the service picks the three roots.
 */

export type ConflictKind = ChangeRequestConflict['kind'];
export type MergeConflict = ChangeRequestConflict;

export type TreeMergeResult = { ok: true; root: string | null } | { ok: false; conflicts: MergeConflict[] };

export interface MergeRoots {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

// ----- markdown, by lines -----

export type MarkdownMergeResult =
  | { ok: true; markdown: string }
  | { ok: false; conflicts: { base: string[]; ours: string[]; theirs: string[] }[] };

/**
 * Line-based diff3. Edits to different lines merge; edits to the same or adjacent lines conflict (as in git:
 * two edits touching neighbouring lines are usually one change of meaning, and a silent interleaving of them
 * is worse than asking); the same edit made on both sides is not a conflict.
 */
export function mergeMarkdown(base: string, ours: string, theirs: string): MarkdownMergeResult {
  if (ours === theirs || theirs === base) return { ok: true, markdown: ours };
  if (ours === base) return { ok: true, markdown: theirs };
  const regions = diff3().diff3Merge(ours.split('\n'), base.split('\n'), theirs.split('\n'), { excludeFalseConflicts: true });
  const lines: string[] = [];
  const conflicts: { base: string[]; ours: string[]; theirs: string[] }[] = [];
  for (const region of regions) {
    if (region.ok) lines.push(...region.ok);
    else if (region.conflict) conflicts.push({ base: region.conflict.o, ours: region.conflict.a, theirs: region.conflict.b });
  }
  return conflicts.length > 0 ? { ok: false, conflicts } : { ok: true, markdown: lines.join('\n') };
}

// ----- page trees -----

interface PageInfo {
  node: PageNode;
  parent: string | null;
}

/** Where each page is in one tree: its node and its parent's id. */
function indexTree(tree: WorkingTree): Map<string, PageInfo> {
  const info = new Map<string, PageInfo>();
  for (const node of tree.walk()) info.set(node.id, { node, parent: node.parent?.id ?? null });
  return info;
}

function childIds(tree: WorkingTree, parent: string | null): string[] {
  if (parent === null) return tree.pages.map((node) => node.id);
  return tree.getPage(parent)?.children.map((node) => node.id) ?? [];
}

/** Which conflict kind a field belongs to; fields that never conflict are not listed. */
const FIELD_KINDS: Partial<Record<keyof PageFields, ConflictKind>> = {
  title: 'title',
  type: 'properties',
  slug: 'properties',
  emoji: 'properties',
  icon: 'properties',
  description: 'properties',
  hidden: 'properties',
  noIndex: 'properties',
  noRobotsIndex: 'properties',
  layout: 'properties',
  cover: 'properties',
  variables: 'properties',
  href: 'properties',
  computed: 'properties',
  computedSeed: 'properties',
};

/** Fields that are bookkeeping rather than edits: they never conflict and do not count as changes. */
const BOOKKEEPING_FIELDS: ReadonlySet<string> = new Set(['createdAt', 'updatedAt', 'git']);

function editedFields(a: PageFields, b: PageFields): boolean {
  return PAGE_FIELD_NAMES.some((name) => !BOOKKEEPING_FIELDS.has(name) && !sameValue(a[name], b[name]));
}

/**
 * Merges the three trees. Per page id: a field changed on one side takes that side, changed alike on both
 * takes it, changed differently conflicts; content that changed on both sides is merged by lines; a page
 * deleted on one side and changed on the other conflicts; pages added on either side are kept; a move on one
 * side applies. Siblings follow theirs' order, with ours' insertions and moves placed after the sibling they
 * follow in ours. Only the pages whose object differs from theirs are written (plus their ancestors).
 */
export async function mergeTrees(writer: TreeWriter, roots: MergeRoots, options: WorkingTreeOptions = {}): Promise<TreeMergeResult> {
  // Trivial cases write nothing: one side did not change anything, or both made the same tree.
  if (roots.ours === roots.base || roots.ours === roots.theirs) return { ok: true, root: roots.theirs };
  if (roots.theirs === roots.base) return { ok: true, root: roots.ours };

  const [base, ours, theirs] = await Promise.all([
    WorkingTree.load(writer, roots.base, options),
    WorkingTree.load(writer, roots.ours, options),
    WorkingTree.load(writer, roots.theirs, options),
  ]);
  const B = indexTree(base);
  const O = indexTree(ours);
  const T = indexTree(theirs);

  const conflicts = new Map<string, MergeConflict>();
  const conflict = (id: string, kind: ConflictKind): void => {
    // Reported as the change request shows the page, or as main shows it when the change request deleted it.
    const info = O.get(id) ?? T.get(id) ?? B.get(id);
    if (!info) return;
    const tree = O.has(id) ? ours : T.has(id) ? theirs : base;
    conflicts.set(`${id}\0${kind}`, { page: id, path: tree.pathOf(info.node), title: info.node.fields.title, kind });
  };

  const allIds = new Set([...B.keys(), ...O.keys(), ...T.keys()]);
  const merged = new Map<string, { fields: PageFields; content: string | null; parent: string | null }>();

  for (const id of allIds) {
    const b = B.get(id);
    const o = O.get(id);
    const t = T.get(id);
    if (o && t) {
      const fields = mergeFields(b?.node.fields, o.node.fields, t.node.fields, (kind) => conflict(id, kind));
      const content = await mergeContent(writer, b?.node.content ?? null, o.node.content, t.node.content, b !== undefined);
      if (content === false) conflict(id, 'content');
      const parent = mergeValue(b?.parent, o.parent, t.parent, b !== undefined);
      if (parent === CONFLICT) conflict(id, 'structure');
      merged.set(id, {
        fields,
        content: content === false ? t.node.content : content,
        parent: parent === CONFLICT ? t.parent : parent,
      });
    } else if (b && (o || t)) {
      // Deleted on one side: fine if the other side left it alone, a conflict if it changed it.
      const kept = (o ?? t)!;
      if (editedFields(b.node.fields, kept.node.fields) || b.node.content !== kept.node.content || b.parent !== kept.parent) {
        conflict(id, 'deleted');
      }
    } else if (!b && (o || t)) {
      const added = (o ?? t)!;
      merged.set(id, { fields: added.node.fields, content: added.node.content, parent: added.parent });
    }
  }

  // A page kept under a parent that the other side deleted: the deletion conflicts with that addition.
  for (const [, page] of merged) {
    if (page.parent !== null && !merged.has(page.parent)) conflict(page.parent, 'deleted');
  }
  // Two moves that are each fine alone can make a cycle (A into B on one side, B into A on the other).
  for (const id of merged.keys()) {
    const seen = new Set<string>();
    for (let at: string | null = id; at !== null && merged.has(at); at = merged.get(at)!.parent) {
      if (seen.has(at)) {
        for (const member of seen) conflict(member, 'structure');
        break;
      }
      seen.add(at);
    }
  }

  // Sibling order, per parent of the merged tree.
  const childrenOf = new Map<string | null, string[]>();
  for (const [id, page] of merged) {
    const list = childrenOf.get(page.parent);
    if (list) list.push(id);
    else childrenOf.set(page.parent, [id]);
  }
  const order = new Map<string | null, string[]>();
  for (const [parent, members] of childrenOf) {
    order.set(parent, orderSiblings(parent, new Set(members), base, ours, theirs, (id) => conflict(id, 'structure')));
  }

  const reusables = await mergeReusables({ base, ours, theirs }, (b, o, t, hasBase) => mergeContent(writer, b, o, t, hasBase), (reusable, kind) => {
    conflicts.set(`reusable\0${reusable.id}\0${kind}`, { page: reusable.id, path: '', title: reusable.title, kind, reusableContent: true });
  });

  if (conflicts.size > 0) {
    return {
      ok: false,
      conflicts: [...conflicts.values()].sort((a, b) => a.path.localeCompare(b.path) || a.kind.localeCompare(b.kind)),
    };
  }

  // Slugs must stay unique among siblings: a slug that theirs already had at that place keeps it, the other
  // page (added or renamed by ours) gets a numeric suffix rather than failing the merge.
  for (const [parent, ids] of order) {
    const keeps = (id: string): boolean => {
      const t = T.get(id);
      return t !== undefined && t.parent === parent && t.node.fields.slug === merged.get(id)!.fields.slug;
    };
    const taken = new Set<string>();
    for (const id of ids) if (keeps(id) && merged.get(id)!.fields.slug !== undefined) taken.add(merged.get(id)!.fields.slug!);
    for (const id of ids) {
      const page = merged.get(id)!;
      if (keeps(id) || page.fields.slug === undefined) continue;
      const slug = uniqueSlug(page.fields.slug, taken);
      taken.add(slug);
      if (slug !== page.fields.slug) page.fields = { ...page.fields, slug };
    }
  }

  // Build the merged tree. A page that comes out identical to its stored object in theirs or in ours (same
  // fields, content and child objects) reuses that object's hash, so only pages that are new combinations
  // (and their ancestors) are written.
  const sameAsStored = (node: PageNode, stored: PageNode | undefined): stored is PageNode =>
    stored !== undefined &&
    stored.hash !== null &&
    node.content === stored.content &&
    node.children.length === stored.children.length &&
    node.children.every((child, i) => child.hash !== null && child.hash === stored.children[i]!.hash) &&
    sameValue(node.fields, stored.fields);
  const build = (id: string, parent: PageNode | null): PageNode => {
    const page = merged.get(id)!;
    const node: PageNode = { id, fields: page.fields, content: page.content, children: [], parent, hash: null };
    node.children = (order.get(id) ?? []).map((child) => build(child, node));
    const t = T.get(id)?.node;
    const o = O.get(id)?.node;
    if (sameAsStored(node, t)) node.hash = t.hash;
    else if (sameAsStored(node, o)) node.hash = o.hash;
    return node;
  };
  const topLevel = (order.get(null) ?? []).map((id) => build(id, null));
  const result = WorkingTree.fromNodes(topLevel, mergeFiles(base, ours, theirs), options, reusables);
  return { ok: true, root: result.commit(writer) };
}

const CONFLICT = Symbol('conflict');

/** The three-way merge of one value; without a base (added on both sides) only equal values merge. */
function mergeValue<T>(b: T | undefined, o: T, t: T, hasBase: boolean): T | typeof CONFLICT {
  if (sameValue(o, t)) return o;
  if (!hasBase) return CONFLICT;
  if (sameValue(o, b)) return t;
  if (sameValue(t, b)) return o;
  return CONFLICT;
}

function mergeFields(
  b: PageFields | undefined,
  o: PageFields,
  t: PageFields,
  onConflict: (kind: ConflictKind) => void,
): PageFields {
  const result: Record<string, unknown> = {};
  for (const name of PAGE_FIELD_NAMES) {
    const ov = o[name];
    const tv = t[name];
    let value: unknown;
    if (name === 'updatedAt') {
      value = ov === undefined ? tv : tv === undefined || ov > tv ? ov : tv;
    } else if (name === 'createdAt') {
      value = tv ?? ov;
    } else if (name === 'git') {
      // Git metadata follows the latest sync, which is main's, unless only the change request's changed.
      value = sameValue(tv, b?.git) ? ov : tv;
    } else {
      const m = mergeValue<unknown>(b?.[name], ov, tv, b !== undefined);
      if (m === CONFLICT) {
        onConflict(FIELD_KINDS[name] ?? 'properties');
        value = tv;
      } else {
        value = m;
      }
    }
    if (value !== undefined) result[name] = value;
  }
  return result as unknown as PageFields;
}

/** The merged content hash, or false on conflict. Content merged by lines is written as a new blob. */
async function mergeContent(
  writer: TreeWriter,
  b: string | null,
  o: string | null,
  t: string | null,
  hasBase: boolean,
): Promise<string | null | false> {
  if (o === t) return o;
  if (hasBase && o === b) return t;
  if (hasBase && t === b) return o;
  const [bm, om, tm] = await Promise.all([
    readMarkdown(writer, hasBase ? b : null),
    readMarkdown(writer, o),
    readMarkdown(writer, t),
  ]);
  const result = mergeMarkdown(bm, om, tm);
  if (!result.ok) return false;
  return result.markdown === '' ? null : writer.putMarkdown(result.markdown);
}

/**
 * The order of the merged children of `parent`: theirs' order, then each page that ours placed (added,
 * moved in, or reordered) is put right after the sibling it follows in ours (first if none). A page that
 * both sides reordered to different neighbours is a structure conflict.
 */
function orderSiblings(
  parent: string | null,
  members: ReadonlySet<string>,
  base: WorkingTree,
  ours: WorkingTree,
  theirs: WorkingTree,
  onConflict: (id: string) => void,
): string[] {
  const bList = childIds(base, parent);
  const oList = childIds(ours, parent).filter((id) => members.has(id));
  const tList = childIds(theirs, parent).filter((id) => members.has(id));
  const oSet = new Set(oList);
  const tSet = new Set(tList);
  const inAll = new Set(bList.filter((id) => oSet.has(id) && tSet.has(id)));
  const bCommon = bList.filter((id) => inAll.has(id));
  const oCommon = oList.filter((id) => inAll.has(id));
  const tCommon = tList.filter((id) => inAll.has(id));
  const movedByOurs = movedIds(bCommon, oCommon);
  const movedByTheirs = movedIds(bCommon, tCommon);

  for (const id of movedByOurs) {
    if (movedByTheirs.has(id) && predecessor(oList, id) !== predecessor(tList, id)) onConflict(id);
  }

  const placedByOurs = oList.filter((id) => !tSet.has(id) || movedByOurs.has(id));
  const sequence = tList.filter((id) => !movedByOurs.has(id));
  for (const id of placedByOurs) {
    const index = oList.indexOf(id);
    let at = 0;
    for (let i = index - 1; i >= 0; i--) {
      const position = sequence.indexOf(oList[i]!);
      if (position >= 0) {
        at = position + 1;
        break;
      }
    }
    sequence.splice(at, 0, id);
  }
  // Pages whose merged parent is here but neither side lists here cannot exist; kept last, never dropped.
  for (const id of members) if (!sequence.includes(id)) sequence.push(id);
  return sequence;
}

function predecessor(list: readonly string[], id: string): string | null {
  const index = list.indexOf(id);
  return index > 0 ? list[index - 1]! : null;
}

/**
 * The pages of `after` (a reordering of `before`) that moved: those outside a longest common subsequence.
 * Both lists hold the same ids, so the LCS is a longest increasing subsequence of positions, O(n log n).
 */
export function movedIds(before: readonly string[], after: readonly string[]): Set<string> {
  if (before.length === after.length && before.every((id, i) => id === after[i])) return new Set();
  const position = new Map(before.map((id, i) => [id, i]));
  const values = after.map((id) => position.get(id)!);
  const tails: number[] = [];
  const tailIndex: number[] = [];
  const previous: number[] = new Array<number>(values.length).fill(-1);
  values.forEach((value, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = value;
    tailIndex[lo] = i;
    previous[i] = lo > 0 ? tailIndex[lo - 1]! : -1;
  });
  const kept = new Set<string>();
  for (let i = tailIndex[tails.length - 1] ?? -1; i >= 0; i = previous[i]!) kept.add(after[i]!);
  return new Set(after.filter((id) => !kept.has(id)));
}

/**
 * Files merge by id without conflicts (their metadata is not edited by people): theirs' files, minus those
 * ours deleted, plus those ours added; a file both sides kept takes theirs' version unless only ours changed.
 */
function mergeFiles(
  base: WorkingTree,
  ours: WorkingTree,
  theirs: WorkingTree,
): { hash: string | null; object: FileObject }[] {
  const byId = (tree: WorkingTree) => new Map(tree.fileEntries.map((entry) => [entry.object.id, entry]));
  const B = byId(base);
  const O = byId(ours);
  const result: { hash: string | null; object: FileObject }[] = [];
  for (const entry of theirs.fileEntries) {
    const id = entry.object.id;
    const b = B.get(id);
    const o = O.get(id);
    if (b && !o && sameValue(b.object, entry.object)) continue;
    if (b && o && sameValue(b.object, entry.object) && !sameValue(o.object, entry.object)) result.push(o);
    else result.push(entry);
  }
  const T = byId(theirs);
  for (const entry of ours.fileEntries) {
    if (!B.has(entry.object.id) && !T.has(entry.object.id)) result.push(entry);
  }
  return result;
}
