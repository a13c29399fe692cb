import { escapeHtml as e, safeUrl } from './html.js';
import type { LayoutContext } from './layout.js';
import { linkTo } from './site-links.js';
import { themeToggleable } from './theme.js';

/*
 * The page's header: the Menu button (shown by the stylesheet on narrow screens, with the script, to open the
 * page tree's drawer), the logo or title, the search form (behind an icon on phones, with the script), the
 * header links and the theme toggle (shown by the script on sites that let readers switch).
 */

// The buttons' icons are drawn by the stylesheet: the page holds no SVG at all, from content or from here.

function headerLinks(ctx: LayoutContext): string {
  const links = ctx.customization.header?.links ?? [];
  const items = links
    .map((link) => {
      const href = linkTo(link.to, ctx);
      const style = link.style === 'button-primary' || link.style === 'button-secondary' ? ` class="${link.style}"` : '';
      return href ? `<li><a href="${e(href)}"${style}>${e(link.title)}</a></li>` : '';
    })
    .join('');
  return items ? `<nav aria-label="Site links" class="header-links"><ul>${items}</ul></nav>` : '';
}

function logo(ctx: LayoutContext, title: string): string {
  const light = safeUrl(ctx.customization.header?.logo?.light);
  const dark = safeUrl(ctx.customization.header?.logo?.dark);
  if (!light) return `<span class="site-title">${e(title)}</span>`;
  const darkImg = dark && dark !== light ? `<img class="logo logo-dark" src="${e(dark)}" alt="${e(title)}">` : '';
  return `<img class="logo logo-light${darkImg ? '' : ' logo-both'}" src="${e(light)}" alt="${e(title)}">${darkImg}`;
}

export function siteHeader(ctx: LayoutContext, siteTitle: string, home: string): string {
  const searchAction = `${ctx.basePath}/search`;
  return `<header class="header">
<button type="button" class="menu-toggle" aria-controls="sidebar" aria-expanded="false">Menu</button>
<a class="home" href="${e(home)}">${logo(ctx, siteTitle)}</a>
<form class="search" role="search" action="${e(searchAction)}" method="get"><label for="search-q" class="visually-hidden">Search</label><input id="search-q" type="search" name="q" placeholder="Search" autocomplete="off"><button type="submit">Search</button><button type="button" class="search-open" aria-controls="search-q" aria-expanded="false" aria-label="Search"></button></form>
${headerLinks(ctx)}${themeToggleable(ctx.customization) ? '<button type="button" class="theme-toggle" hidden aria-label="Toggle dark theme"></button>' : ''}
</header>`;
}
