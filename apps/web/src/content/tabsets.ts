import { useLayoutEffect, useRef, type KeyboardEvent, type MouseEvent, type RefObject } from 'react';

/*
 * Tabs in rendered pages and the editor's preview (@quire/render's markup, every panel shown): one panel at a
 * time, chosen by click or by the arrow keys, Home and End, as the reader's script does
 * (apps/reader/assets/reader.js). The preview replaces a section's HTML as one types, which would bring back
 * each block's first tab: the tab chosen in each block is kept by the block's id (stable while its section's
 * heading is) and chosen again.
 */

function tabsOf(set: Element): HTMLElement[] {
  return Array.from(set.querySelectorAll<HTMLElement>(':scope > [role=tablist] > [role=tab]'));
}

function select(tabs: readonly HTMLElement[], tab: HTMLElement, focus: boolean): void {
  for (const each of tabs) {
    const on = each === tab;
    each.setAttribute('aria-selected', on ? 'true' : 'false');
    each.tabIndex = on ? 0 : -1;
    const panel = document.getElementById(each.getAttribute('aria-controls') ?? '');
    if (panel) panel.hidden = !on;
  }
  if (focus) tab.focus();
}

/** Shows one panel of each block under `root`: the one chosen before (`chosen`, by block id), else the first. */
export function readyTabsets(root: HTMLElement, chosen: ReadonlyMap<string, string>): void {
  for (const set of Array.from(root.querySelectorAll('.tabset'))) {
    const tabs = tabsOf(set);
    if (tabs.length === 0) continue;
    const kept = tabs.find((tab) => tab.id === chosen.get(set.id));
    set.classList.add('tabset-ready');
    select(tabs, kept ?? tabs.find((tab) => tab.getAttribute('aria-selected') === 'true') ?? tabs[0]!, false);
  }
}

/** The tab list and tabs around an event's target, if it is a tab. */
function tabAt(target: EventTarget | null): { set: Element; tabs: HTMLElement[]; tab: HTMLElement } | undefined {
  const tab = target instanceof Element ? target.closest<HTMLElement>('[role=tab]') : null;
  const set = tab?.closest('.tabset');
  if (!tab || !set) return undefined;
  const tabs = tabsOf(set);
  return tabs.includes(tab) ? { set, tabs, tab } : undefined;
}

/** A click on a tab shows its panel. */
export function tabsetClick(event: { target: EventTarget | null }, chosen: Map<string, string>): void {
  const found = tabAt(event.target);
  if (!found) return;
  select(found.tabs, found.tab, false);
  chosen.set(found.set.id, found.tab.id);
}

const KEYS: Record<string, (at: number, count: number) => number> = {
  ArrowRight: (at, count) => (at + 1) % count,
  ArrowLeft: (at, count) => (at - 1 + count) % count,
  Home: () => 0,
  End: (_at, count) => count - 1,
};

/** Arrow keys, Home and End on a tab choose (and focus) another tab of its block. */
export function tabsetKeyDown(event: { target: EventTarget | null; key: string; preventDefault(): void }, chosen: Map<string, string>): void {
  const move = KEYS[event.key];
  const found = move ? tabAt(event.target) : undefined;
  if (!move || !found) return;
  event.preventDefault();
  const next = found.tabs[move(found.tabs.indexOf(found.tab), found.tabs.length)]!;
  select(found.tabs, next, true);
  chosen.set(found.set.id, next.id);
}

/**
 * Tabs switching inside the element given `ref`, made ready again each time `rendered` changes (before paint,
 * so that replaced HTML never shows all of its panels for a frame). The handlers go on that element: they act
 * only on the tabs in it (buttons), delegated.
 */
export function useTabsets<E extends HTMLElement>(rendered: unknown): { ref: RefObject<E | null>; onClick: (event: MouseEvent) => void; onKeyDown: (event: KeyboardEvent) => void } {
  const ref = useRef<E>(null);
  const chosen = useRef(new Map<string, string>());
  useLayoutEffect(() => {
    if (ref.current) readyTabsets(ref.current, chosen.current);
  }, [rendered]);
  return { ref, onClick: (event) => tabsetClick(event, chosen.current), onKeyDown: (event) => tabsetKeyDown(event, chosen.current) };
}
