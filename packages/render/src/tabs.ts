import { groupGitBookTabs } from '@quire/markdown-rules';
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import type { Parent, Root, RootContent } from 'mdast';

/*
 * Tabs: GitBook's `{% tabs %}` `{% tab title="..." %}` ... `{% endtab %}` `{% endtabs %}` tags, read by
 * @quire/markdown-rules exactly as the server's content model reads them (so a page has the tabs on the
 * site that the API's `tabs` blocks say), at the top level of a page as in GitBook.
 *
 * Two steps, on either side of the sanitizer. remarkTabs turns a block into plain wrappers the sanitizer
 * lets through (`div.tabset` > `div.tabset-panel` > `p.tabset-title` holding the title as text, then the tab's
 * blocks), so the content of a tab is sanitized like any other. rehypeTabs, after the sanitizer, makes the
 * WAI-ARIA tabs pattern of those wrappers: a `tablist` of `tab` buttons (the first selected) controlling
 * `tabpanel`s, with ids of its own making. Every panel is in the HTML and none is hidden: without
 * JavaScript the page shows each tab's title and content in turn (the tab list is shown only once a script
 * has marked the block `tabset-ready` and hidden the panels not selected, as the reader's script and the
 * app's preview do).
 */

/** The classes of the wrappers remarkTabs makes and the sanitizer must let through. */
export const TABS_CLASS = 'tabset';
export const TABS_PANEL_CLASS = 'tabset-panel';
export const TABS_TITLE_CLASS = 'tabset-title';

interface TabsNode extends Parent {
  type: 'tabs';
}

/** remark plugin: GitBook tabs blocks at the top of the page become `div.tabs` wrappers (see above). */
export function remarkTabs() {
  return (tree: Root) => {
    if (!tree.children.some((node) => node.type === 'paragraph')) return;
    tree.children = groupGitBookTabs(tree.children).map((node): RootContent => {
      if (node.type !== 'quireTabs') return node as RootContent;
      const tabs: TabsNode = {
        type: 'tabs',
        data: { hName: 'div', hProperties: { className: [TABS_CLASS] } },
        children: node.children.map((tab) => ({
          type: 'tabsPanel',
          data: { hName: 'div', hProperties: { className: [TABS_PANEL_CLASS] } },
          children: [
            { type: 'tabsTitle', data: { hName: 'p', hProperties: { className: [TABS_TITLE_CLASS] } }, children: [{ type: 'text', value: tab.title }] },
            ...tab.children,
          ],
        })) as unknown as RootContent[],
      };
      return tabs as unknown as RootContent;
    });
  };
}

function hasClass(node: ElementContent, name: string): node is Element {
  if (node.type !== 'element') return false;
  const classes = node.properties.className;
  return Array.isArray(classes) && classes.includes(name);
}

/**
 * The ids of a block's tabs and panels: `tabs.<heading>.<n>`, the n-th tabs block after the page's
 * top-level heading whose anchor is <heading> (`tabs.<n>` before the first heading). Stable while the
 * section holding the block is unchanged, and the same whether the page is rendered whole or by sections
 * (sections.ts cuts at top-level headings). Heading anchors never hold a dot, so no id of a heading
 * (or of the footnotes, `user-content-...`) can be the same.
 */
function blockId(heading: string | undefined, n: number): string {
  return heading === undefined ? `tabs.${n}` : `tabs.${heading}.${n}`;
}

function tabsPattern(block: Element, base: string): void {
  const panels = block.children.filter((child): child is Element => hasClass(child, TABS_PANEL_CLASS));
  const tabs: Element[] = panels.map((panel, index) => {
    const title = panel.children.find((child): child is Element => hasClass(child, TABS_TITLE_CLASS));
    const selected = index === 0;
    panel.properties = {
      ...panel.properties,
      role: 'tabpanel',
      id: `${base}-panel-${index + 1}`,
      ariaLabelledBy: `${base}-tab-${index + 1}`,
      tabIndex: 0,
    };
    return {
      type: 'element',
      tagName: 'button',
      properties: {
        type: 'button',
        role: 'tab',
        className: ['tabset-tab'],
        id: `${base}-tab-${index + 1}`,
        ariaControls: `${base}-panel-${index + 1}`,
        ariaSelected: selected ? 'true' : 'false',
        tabIndex: selected ? 0 : -1,
      },
      // The title's sanitized text (a copy: the panel keeps its own for pages read without JavaScript).
      children: title ? structuredClone(title.children) : [],
    };
  });
  block.properties = { ...block.properties, id: base };
  block.children = [{ type: 'element', tagName: 'div', properties: { role: 'tablist', className: ['tabset-list'] }, children: tabs }, ...panels];
}

/** rehype plugin, after the sanitizer and the heading anchors: the tabs pattern of each `div.tabset` (see above). */
export function rehypeTabs() {
  return (tree: HastRoot) => {
    let heading: string | undefined;
    let n = 0;
    for (const child of tree.children) {
      if (child.type !== 'element') continue;
      if (/^h[1-6]$/.test(child.tagName) && typeof child.properties.id === 'string') {
        heading = child.properties.id;
        n = 0;
      } else if (hasClass(child, TABS_CLASS)) {
        n += 1;
        tabsPattern(child, blockId(heading, n));
      }
    }
  };
}
