import { franc } from 'franc-min';
import { fromHtml } from 'hast-util-from-html';
import { toText } from 'hast-util-to-text';
import type { Nodes as MdastNodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import snowball from 'snowball-stemmers';
import stopwords from 'stopword';

/*
 * Text of support messages, made ready for grouping: bodies (Markdown or HTML) to plain text, the language
 * of a text, its sentences, and its terms (words segmented by the platform's ICU word breaker, lower-cased,
 * stop words dropped, stemmed by the Snowball stemmer of the language). Pure: no I/O, same input, same output.
 */

/** Text beyond this many characters of one body is not analysed (the bound of the per-body work). */
export const MAX_BODY_CHARACTERS = 20_000;

/** Block-level Markdown nodes end a line of their own, so their sentences do not run into each other. */
const BLOCK_TYPES = new Set(['paragraph', 'heading', 'blockquote', 'listItem', 'code', 'table', 'tableRow', 'thematicBreak', 'html']);

function htmlToText(html: string): string {
  // A real HTML parser (parse5 via hast) and the innerText algorithm: tags, comments, scripts and styles go,
  // entities are decoded, block elements become line breaks.
  return toText(fromHtml(html, { fragment: true }));
}

/**
 * The plain text of a message body given as Markdown or HTML. HTML is what CommonMark calls raw HTML, so a
 * body is read as Markdown and every piece of HTML in it (a whole HTML e-mail is one) goes through the HTML
 * parser. The tree is walked with an explicit stack: a deeply nested body cannot overflow the call stack.
 */
export function bodyToText(body: string): string {
  const source = body.length > MAX_BODY_CHARACTERS ? body.slice(0, MAX_BODY_CHARACTERS) : body;
  // Most chat messages have no Markdown or HTML at all, and most e-mails are one HTML document: neither
  // needs the Markdown parser.
  if (!MARKUP.test(source)) return normaliseSpace(source);
  if (/^\s*</.test(source) && /(?:>|\/[a-z]+>)\s*$/i.test(source)) return normaliseSpace(htmlToText(source));
  let tree: MdastNodes;
  try {
    tree = fromMarkdown(source);
  } catch {
    // The parser has limits of its own on pathological input; the raw text is still worth reading.
    return source;
  }
  const out: string[] = [];
  const stack: Array<MdastNodes | string> = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') {
      out.push(node);
      continue;
    }
    switch (node.type) {
      case 'text':
      case 'inlineCode':
        out.push(node.value);
        continue;
      case 'code':
        out.push('\n', node.value, '\n');
        continue;
      case 'html':
        out.push(' ', htmlToText(node.value), BLOCK_TYPES.has(node.type) ? ' ' : '');
        continue;
      case 'break':
        out.push('\n');
        continue;
      case 'image':
        if (node.alt) out.push(node.alt);
        continue;
      default:
        break;
    }
    if ('children' in node) {
      if (BLOCK_TYPES.has(node.type)) stack.push('\n');
      for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as MdastNodes);
      if (BLOCK_TYPES.has(node.type)) out.push('\n');
    }
  }
  return normaliseSpace(out.join(''));
}

/** Characters and line starts that make a text Markdown or HTML rather than plain text. */
const MARKUP = /[<>&*_`#[\]|~\\]|^\s*(?:[-+]\s|\d+[.)]\s|=+\s*$)/m;

function normaliseSpace(text: string): string {
  return text.replace(/[ \t\u00a0]+/g, ' ').replace(/ *\n[\n ]*/g, '\n').trim();
}

/** ISO 639-3 code (franc's) -> the Snowball stemmer of that language. */
const STEMMERS: Readonly<Record<string, string>> = {
  eng: 'english', fra: 'french', deu: 'german', spa: 'spanish', ita: 'italian', por: 'portuguese', nld: 'dutch',
  swe: 'swedish', nob: 'norwegian', nno: 'norwegian', dan: 'danish', fin: 'finnish', rus: 'russian', tur: 'turkish',
  ron: 'romanian', hun: 'hungarian', ces: 'czech', cat: 'catalan', arb: 'arabic', slv: 'slovene', eus: 'basque',
  hye: 'armenian', tam: 'tamil', gle: 'irish',
};

/** ISO 639-3 code (franc's) -> the key of `stopword`'s list when it differs. */
const STOPWORD_KEYS: Readonly<Record<string, string>> = { arb: 'ara', cmn: 'zho', nno: 'nob', pes: 'fas', zlm: 'msa' };

/** Languages `detectLanguage` chooses among: those with a stemmer or a stop-word list. */
const DETECTABLE = [...new Set([...Object.keys(STEMMERS), 'cmn', 'jpn', 'kor', 'pol', 'ukr', 'bul', 'ell', 'heb', 'vie', 'tha', 'ind', 'hin', 'pes', 'slk', 'hrv', 'lit', 'lav', 'est'])];

/** The language assumed when a text is too short or too mixed to tell. */
export const DEFAULT_LANGUAGE = 'eng';

/** The language of a text as an ISO 639-3 code (`eng`, `fra`, ...); DEFAULT_LANGUAGE when it cannot be told. */
export function detectLanguage(text: string): string {
  const language = franc(text.slice(0, 4000), { minLength: 12, only: DETECTABLE });
  return language === 'und' ? DEFAULT_LANGUAGE : language;
}

/**
 * Words that say nothing about the problem in support messages (greetings, thanks, the words "help" and
 * "issue" themselves), per language; the general stop-word lists do not have them.
 */
const SUPPORT_FILLER = [
  'hi', 'hello', 'hey', 'thanks', 'thank', 'thx', 'regards', 'cheers', 'please', 'help', 'team', 'support', 'issue', 'problem', 'question', 'dear', 'best', 'kind', 'hope', 'ok', 'okay',
  'bonjour', 'merci', 'cordialement', 'salut', 'aide', 'problème', 'probleme', 'question', 'bonne', 'journée', 'svp',
  'hallo', 'danke', 'grüße', 'gruß', 'grüsse', 'freundlichen', 'bitte', 'vielen', 'problem', 'frage', 'liebe', 'lieber', 'guten', 'tag',
  'hola', 'gracias', 'saludos', 'ayuda', 'problema', 'pregunta', 'buenos', 'días', 'dias', 'favor', 'estimado', 'estimados',
];

const stopLists = new Map<string, ReadonlySet<string>>();

function stopWordsOf(language: string): ReadonlySet<string> {
  let set = stopLists.get(language);
  if (!set) {
    const lists = stopwords as Readonly<Record<string, unknown>>;
    const own = lists[STOPWORD_KEYS[language] ?? language];
    // English words are common in every language's support messages (product words aside), so the English
    // list always applies too.
    set = new Set([...(Array.isArray(own) ? (own as string[]) : []), ...(lists.eng as string[]), ...SUPPORT_FILLER]);
    stopLists.set(language, set);
  }
  return set;
}

type Stemmer = { stem(word: string): string };
const stemmers = new Map<string, Stemmer | null>();

function stemmerOf(language: string): Stemmer | null {
  if (!stemmers.has(language)) {
    const algorithm = STEMMERS[language];
    stemmers.set(language, algorithm ? snowball.newStemmer(algorithm) : null);
  }
  return stemmers.get(language)!;
}

const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });
const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const HAS_LETTER = /\p{L}/u;
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const NUMBER = /^\p{N}+$/u;

/**
 * The terms of a text in `language`: ICU word segments (which also split Chinese, Japanese and Thai into
 * words), NFKC-normalised and lower-cased; stop words, one-letter words and numbers of fewer than three
 * digits dropped (error codes such as 404 stay); each stemmed by the language's Snowball stemmer.
 */
export function terms(text: string, language: string): string[] {
  const stop = stopWordsOf(language);
  const stemmer = stemmerOf(language);
  const out: string[] = [];
  for (const segment of wordSegmenter.segment(text.normalize('NFKC'))) {
    if (!segment.isWordLike) continue;
    const word = segment.segment.toLowerCase();
    if (NUMBER.test(word)) {
      if (word.length >= 3) out.push(word);
      continue;
    }
    if (!HAS_LETTER.test(word)) continue;
    if (word.length < 2 && !IDEOGRAPHIC.test(word)) continue;
    // Elided articles ("l'application", "d'accès") carry the word after the apostrophe.
    const bare = word.replace(/^[a-z]{1,2}['’]/u, '');
    if (stop.has(bare) || stop.has(word)) continue;
    const stem = stemmer && !IDEOGRAPHIC.test(bare) ? stemmer.stem(bare) : bare;
    if (stem.length > 0 && !stop.has(stem)) out.push(stem);
  }
  return out;
}

/** The sentences of a text: every line on its own, each split by the ICU sentence breaker. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    for (const segment of sentenceSegmenter.segment(line)) {
      const sentence = segment.segment.trim();
      if (sentence) out.push(sentence);
    }
  }
  return out;
}

/** Cuts a text to at most `max` characters at a word boundary, marking the cut with an ellipsis. */
export function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/u, '')}…`;
}
