/*
 * Rison (https://github.com/Nanonid/rison), the compact JSON the public API takes for a preview's visitor
 * claims in a query parameter: `(beta:!t,plan:pro,seats:3,name:'A b',nested:(x:!f))`. Only what claims use is
 * read: objects, `!t` `!f` `!n`, numbers, bare and quoted strings (`!'` and `!!` escape inside quotes), and
 * arrays `!(...)`. Anything else is an error naming the position, so a bad parameter is the caller's 400.
 */

export type RisonValue = boolean | number | string | null | RisonValue[] | { [name: string]: RisonValue };

export class RisonError extends Error {
  override readonly name = 'RisonError';
}

const BARE = /[^\s'!:(),*@$]/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;
/** Nesting allowed: claims are shallow, and a bound keeps a hostile parameter from recursing deep. */
const MAX_DEPTH = 16;

export function parseRison(text: string): RisonValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new RisonError(`${what} at character ${at + 1}`);
  };
  const bare = (): string => {
    const start = at;
    while (at < text.length && BARE.test(text[at]!)) at += 1;
    if (at === start) fail('a value was expected');
    return text.slice(start, at);
  };
  const quoted = (): string => {
    at += 1;
    let out = '';
    for (;;) {
      if (at >= text.length) fail('an unterminated string');
      const c = text[at]!;
      if (c === "'") { at += 1; return out; }
      if (c === '!') {
        const next = text[at + 1];
        if (next !== "'" && next !== '!') fail('a bad escape');
        out += next;
        at += 2;
      } else { out += c; at += 1; }
    }
  };
  const value = (depth: number): RisonValue => {
    if (depth > MAX_DEPTH) fail('too deep a nesting');
    const c = text[at];
    if (c === '(') return object(depth + 1);
    if (c === "'") return quoted();
    if (c === '!') {
      const next = text[at + 1];
      at += 2;
      if (next === 't') return true;
      if (next === 'f') return false;
      if (next === 'n') return null;
      if (next === '(') { at -= 1; return array(depth + 1); }
      at -= 2;
      return fail('an unknown ! value');
    }
    const word = bare();
    return NUMBER.test(word) ? Number(word) : word;
  };
  const list = <T>(close: string, item: () => T): T[] => {
    const items: T[] = [];
    at += 1;
    if (text[at] === close) { at += 1; return items; }
    for (;;) {
      items.push(item());
      if (text[at] === ',') { at += 1; continue; }
      if (text[at] === close) { at += 1; return items; }
      fail(`"," or "${close}" was expected`);
    }
  };
  const array = (depth: number): RisonValue[] => list(')', () => value(depth));
  const object = (depth: number): { [name: string]: RisonValue } => {
    const out: { [name: string]: RisonValue } = Object.create(null);
    for (const [name, item] of list(')', () => {
      const name = text[at] === "'" ? quoted() : bare();
      if (text[at] !== ':') fail('":" was expected');
      at += 1;
      return [name, value(depth)] as const;
    })) out[name] = item;
    return out;
  };
  const result = value(0);
  if (at !== text.length) fail('the text goes on after the value');
  return result;
}
