import { safeUrl } from './html.js';
import type { LayoutContext } from './layout.js';

/** The address of a customization's link (header, footer, announcement): an http(s) URL or a page of the site. */
export function linkTo(to: unknown, ctx: LayoutContext): string | undefined {
  if (!to || typeof to !== 'object') return undefined;
  const target = to as { kind?: string; url?: string; page?: string };
  if (target.kind === 'url') return safeUrl(target.url);
  if (target.kind === 'page' && typeof target.page === 'string') return ctx.tree.byId.get(target.page)?.href;
  return undefined;
}
