/*
 * What Quire keeps of a visitor's event (site insights), read from what the client sends: the kinds of
 * device, browser, operating system and crawler (not the user-agent string), addresses without their query
 * and fragment (they may carry share keys, tokens or personal data), the domain of the referrer and the UTM
 * parameters of the page's address, and the starts of the intervals the event falls in. Pure functions.
 */

export interface AgentKinds {
  device: 'desktop' | 'tablet' | 'mobile' | 'unknown';
  browser: 'chrome' | 'firefox' | 'safari' | 'edge' | 'ie' | 'opera' | 'unknown';
  os: 'windows' | 'macos' | 'linux' | 'android' | 'ios' | 'unknown';
  /** A known crawler's name, `unknown` for another crawler, '' for a person. */
  bot: string;
}

const BOTS: ReadonlyArray<[RegExp, string]> = [
  [/googlebot/i, 'googlebot'],
  [/bingbot/i, 'bingbot'],
  [/duckduckbot/i, 'duckduckbot'],
  [/facebookexternalhit|facebookbot/i, 'facebookbot'],
  [/applebot/i, 'applebot'],
  [/chatgpt|gptbot|oai-searchbot/i, 'chatgpt'],
  [/claudebot|claude-web|anthropic/i, 'anthropic'],
  [/bot\b|crawler|spider|slurp/i, 'unknown'],
];

export function agentKinds(userAgent: string): AgentKinds {
  const bot = BOTS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? '';
  // Order matters: Edge and Opera say Chrome too, Chrome says Safari too.
  const browser = /edg(e|a|ios)?\//i.test(userAgent) ? 'edge'
    : /opr\/|opera/i.test(userAgent) ? 'opera'
      : /firefox\/|fxios\//i.test(userAgent) ? 'firefox'
        : /chrome\/|crios\/|chromium\//i.test(userAgent) ? 'chrome'
          : /msie |trident\//i.test(userAgent) ? 'ie'
            : /safari\//i.test(userAgent) ? 'safari'
              : 'unknown';
  const os = /windows/i.test(userAgent) ? 'windows'
    : /iphone|ipad|ipod/i.test(userAgent) ? 'ios'
      : /android/i.test(userAgent) ? 'android'
        : /mac os x|macintosh/i.test(userAgent) ? 'macos'
          : /linux|x11/i.test(userAgent) ? 'linux'
            : 'unknown';
  const device = /ipad|tablet/i.test(userAgent) || (/android/i.test(userAgent) && !/mobile/i.test(userAgent)) ? 'tablet'
    : /mobi|iphone|ipod/i.test(userAgent) ? 'mobile'
      : os === 'windows' || os === 'macos' || os === 'linux' ? 'desktop'
        : 'unknown';
  return { device, browser, os, bot };
}

/** The address without its query and fragment; undefined when it does not parse. */
export function addressWithoutQuery(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return `${parsed.origin === 'null' ? `${parsed.protocol}//${parsed.host}` : parsed.origin}${parsed.pathname}`;
}

/** The host of an address, '' when it has none. */
export function domainOf(url: string | null | undefined): string {
  return url && URL.canParse(url) ? new URL(url).hostname : '';
}

export interface Utm {
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  utm_term: string;
  utm_content: string;
}

/** The UTM parameters of the page's address ('' for each one absent), read before its query is dropped. */
export function utmOf(url: string): Utm {
  const query = URL.canParse(url) ? new URL(url).searchParams : new URLSearchParams();
  const value = (name: string) => (query.get(name) ?? '').slice(0, 200);
  return { utm_source: value('utm_source'), utm_medium: value('utm_medium'), utm_campaign: value('utm_campaign'), utm_term: value('utm_term'), utm_content: value('utm_content') };
}

export interface IntervalStarts {
  hour_start: string;
  day_start: string;
  week_start: string;
  month_start: string;
}

/** The starts (UTC, ISO) of the hour, day, week (from Monday) and month of a moment. */
export function intervalStarts(at: Date): IntervalStarts {
  const hour = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours()));
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const week = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
  const month = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  return { hour_start: hour.toISOString(), day_start: day.toISOString(), week_start: week.toISOString(), month_start: month.toISOString() };
}
