import type { ServerResponse } from 'node:http';

/** The page's policy; `styleHash` allows its one inline <style> (none on bare pages: `'none'` may not sit beside `'self'`). */
export function csp(styleHash?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${styleHash ? ` ${styleHash}` : ''}`,
    "img-src 'self' https: http:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    // Framed by its own origin only: the app (same origin, `/`) shows a site's preview in a frame; no other
    // site can frame it (clickjacking).
    "frame-ancestors 'self'",
  ].join('; ');
}

/** The headers of every answer, by the site's visibility (none before a site is known). */
export function commonHeaders(visibility?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'SAMEORIGIN',
    // Open sites may be kept by shared caches only if they revalidate; restricted ones by the browser alone.
    'Cache-Control': visibility === 'public' || visibility === 'unlisted' ? 'public, no-cache' : 'private, no-cache',
    Vary: 'Cookie',
  };
  if (visibility && visibility !== 'public') headers['X-Robots-Tag'] = 'noindex';
  return headers;
}

export function setCommonHeaders(res: ServerResponse, visibility?: string): void {
  for (const [name, value] of Object.entries(commonHeaders(visibility))) res.setHeader(name, value);
}
