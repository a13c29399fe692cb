import type { ReusableObject, TreeWriter } from './objects.js';
import type { ConflictKind } from './merge.js';
import { sameValue, type WorkingTree } from './tree.js';

/*
 * The three-way merge of a revision's reusable contents, by id, as pages merge: a title changed on one side
 * takes that side, changed differently conflicts; bodies changed on both sides merge by lines; deleted on
 * one side and changed on the other conflicts; added on either side is kept. Theirs' order, then ours'
 * additions.
 */

type Entry = { hash: string | null; object: ReusableObject };
export type ReusableConflict = (reusable: ReusableObject, kind: ConflictKind) => void;
/** The line merge of two bodies from their base (merge.ts's mergeContent): the merged hash, or false. */
export type ContentMerger = (b: string | null, o: string | null, t: string | null, hasBase: boolean) => Promise<string | null | false>;

export async function mergeReusables(
  trees: { base: WorkingTree; ours: WorkingTree; theirs: WorkingTree },
  mergeContent: ContentMerger,
  onConflict: ReusableConflict,
): Promise<Entry[]> {
  const byId = (tree: WorkingTree) => new Map(tree.reusableEntries.map((entry) => [entry.object.id, entry]));
  const B = byId(trees.base);
  const O = byId(trees.ours);
  const T = byId(trees.theirs);
  const result: Entry[] = [];
  for (const t of trees.theirs.reusableEntries) {
    const b = B.get(t.object.id);
    const o = O.get(t.object.id);
    if (!o) {
      // Ours deleted it (or theirs added it): a deletion of something theirs changed conflicts.
      if (b && !sameValue(b.object, t.object)) onConflict(t.object, 'deleted');
      if (!b) result.push(t);
      continue;
    }
    const merged = await mergeOne(b?.object, o.object, t.object, mergeContent, onConflict);
    result.push(sameValue(merged, t.object) ? t : sameValue(merged, o.object) ? o : { hash: null, object: merged });
  }
  for (const o of trees.ours.reusableEntries) {
    if (T.has(o.object.id)) continue;
    const b = B.get(o.object.id);
    if (!b) result.push(o);
    // Theirs deleted it: fine if ours left it alone, a conflict if ours changed it.
    else if (!sameValue(b.object, o.object)) onConflict(o.object, 'deleted');
  }
  return result;
}

async function mergeOne(b: ReusableObject | undefined, o: ReusableObject, t: ReusableObject, mergeContent: ContentMerger, onConflict: ReusableConflict): Promise<ReusableObject> {
  let title = t.title;
  if (o.title !== t.title) {
    if (b && b.title === t.title) title = o.title;
    else if (!b || b.title !== o.title) onConflict(o, 'title');
  }
  const content = await mergeContent(b?.content ?? null, o.content, t.content, b !== undefined);
  if (content === false) onConflict(o, 'content');
  // Git metadata follows the latest sync, which is main's, unless only the change request's changed.
  const git = sameValue(t.git, b?.git) ? o.git : t.git;
  return { kind: 'reusable', id: t.id, title, content: content === false ? t.content : content, ...(git ? { git } : {}) };
}
