import { ApiFailure } from '../api/api-failure.js';
import { escapeHtml as e } from '../site/html.js';
import type { AssetPaths } from '../site/layout.js';

/** A page outside any site (no site at that address, or an error before one was known). */
export function bareDocument(assets: AssetPaths, title: string, message: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${e(title)}</title><link rel="stylesheet" href="${e(assets.css)}"></head><body><main id="content" class="bare"><h1>${e(title)}</h1><p>${e(message)}</p></main></body></html>\n`;
}

export interface BareAnswer {
  status: number;
  title: string;
  message: string;
}

const UNAVAILABLE: BareAnswer = { status: 502, title: 'Unavailable', message: 'The site cannot be shown right now. Try again shortly.' };

/** What a visitor is told when the address's lookup fails: the API's 404, 401 and 400 say why; anything else is a 502. */
export function lookupFailure(error: unknown): BareAnswer {
  const status = error instanceof ApiFailure ? error.status : 502;
  if (status === 404) return { status, title: 'Not found', message: 'There is no published site at this address.' };
  if (status === 401) return { status, title: 'Sign-in needed', message: 'This site is only for signed-in visitors.' };
  if (status === 400) return { status, title: 'Bad address', message: 'This address cannot be read.' };
  return UNAVAILABLE;
}

/** What a failure after the lookup answers: the API's 404 (the thing asked for is gone) is a 404, anything else a 502. */
export function laterFailure(error: unknown): BareAnswer {
  return error instanceof ApiFailure && error.status === 404 ? { status: 404, title: 'Not found', message: 'There is nothing at this address.' } : UNAVAILABLE;
}
