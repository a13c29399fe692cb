import { safeColor } from './html.js';
import type { SiteCustomization } from './types.js';

/*
 * Which theme a page shows. A site that lets readers switch (`themes.toggeable`, the default) follows the
 * reader's system (prefers-color-scheme) until the reader chooses, and the choice is remembered; the page
 * carries no theme then, and the script in <head> applies the choice or the system's before the first paint
 * (without the script, the stylesheet follows the system). A site that does not let readers switch fixes its
 * `themes.default`, written in the page. `themes.default` is otherwise the theme of a system that states no
 * preference.
 */

/** Whether readers may switch themes. */
export function themeToggleable(customization: SiteCustomization): boolean {
  return customization.themes?.toggeable !== false;
}

/** The theme attributes of <html>: the fixed theme, or the default the script falls back on. */
export function themeAttributes(customization: SiteCustomization): string {
  const theme = customization.themes?.default === 'dark' ? 'dark' : 'light';
  return themeToggleable(customization) ? `data-theme-default="${theme}"` : `data-theme="${theme}"`;
}

/** The site's own colours, as CSS: light ones at the root, dark ones wherever the dark theme applies. */
export function themeStyle(customization: SiteCustomization): string {
  const styling = customization.styling;
  const rules: string[] = [];
  const light: string[] = [];
  const dark: string[] = [];
  const pairs: Array<[string, { light: string; dark: string } | undefined]> = [
    ['--primary', styling?.primaryColor],
    ['--info', styling?.infoColor],
    ['--success', styling?.successColor],
    ['--warning', styling?.warningColor],
    ['--danger', styling?.dangerColor],
    ['--tint', styling?.tint?.color],
  ];
  for (const [name, value] of pairs) {
    const l = safeColor(value?.light);
    const d = safeColor(value?.dark);
    if (l) light.push(`${name}:${l}`);
    if (d) dark.push(`${name}:${d}`);
  }
  if (light.length) rules.push(`:root{${light.join(';')}}`);
  if (dark.length) {
    rules.push(`:root[data-theme=dark]{${dark.join(';')}}`);
    // No theme on the page and no script to set one: the system's dark scheme (as reader.css does).
    rules.push(`@media (prefers-color-scheme:dark){:root:not([data-theme]){${dark.join(';')}}}`);
  }
  return rules.join('');
}
