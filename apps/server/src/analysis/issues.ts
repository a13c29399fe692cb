import { bodyToText, detectLanguage, sentences, shorten, terms } from './text.js';
import { addInto, cosine, type TermVector } from './vectors.js';

/*
 * The issues a customer raised in one conversation, found extractively: the customer's sentences (the
 * subject and the `user` messages) that say something (two terms or more after stop words), cut into
 * segments where the customer turns to another subject (a sentence that opens with "also", "another",
 * "außerdem", "par ailleurs"... and shares little with what came before). Each segment is an issue whose
 * title and summary are the customer's own most central sentences.
 */

export interface ConversationText {
  subject?: string | undefined;
  parts: ReadonlyArray<{ role: string; body: string }>;
}

export interface FoundIssue {
  title: string;
  summary: string;
  /** Sublinear term frequencies (1 + ln tf) of the issue's stems. */
  terms: TermVector;
}

/** At most this many issues per conversation; further segments join the last one. */
export const MAX_ISSUES_PER_CONVERSATION = 5;
export const MAX_TITLE_LENGTH = 120;
export const MAX_SUMMARY_LENGTH = 500;
/** Sentences that say something: at least this many terms. */
const MIN_UNIT_TERMS = 2;
/** A sentence that opens with a turn marker starts a new issue only when it shares less than this with the current one. */
const NEW_TOPIC_SIMILARITY = 0.2;
/** The customer's text analysed per conversation is bounded by this many sentences. */
const MAX_UNITS = 400;

/** Openers that announce another subject, in the languages the labelled set covers and a few more. */
const TURN_MARKERS = new RegExp(
  '^(?:' + [
    'also', 'another', 'additionally', 'one more', 'separately', 'second(?:ly)?', 'btw', 'by the way', 'unrelated', 'on another note', 'and another', 'plus', 'other than that', 'apart from that',
    'aussi', 'autre', 'une autre', 'un autre', 'par ailleurs', 'de plus', '[ée]galement', 'sinon', 'deuxi[èe]me(?:ment)?', "j'ai aussi", 'enfin',
    'au(?:ß|ss)erdem', 'zus[äa]tzlich', '[üu]brigens', 'noch (?:etwas|eine|ein)', 'eine andere', 'ein anderes', 'zweitens', 'auch', 'dar[üu]ber hinaus',
    'tambi[ée]n', 'adem[áa]s', 'otra cosa', 'otro', 'otra', 'por cierto', 'aparte', 'segundo', 'por otro lado',
    'inoltre', 'anche', "un'altra", 'um outro', 'uma outra', 'al[ée]m disso', 'tamb[ée]m', 'daarnaast', 'ook', 'verder',
  ].join('|') + ')(?=[\\s,:;.!?]|$)',
  'iu',
);

interface Unit {
  text: string;
  vector: TermVector;
  isSubject: boolean;
}

function vectorOf(words: readonly string[]): TermVector {
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function sublinear(vector: TermVector): TermVector {
  const out: TermVector = new Map();
  for (const [term, count] of vector) out.set(term, 1 + Math.log(count));
  return out;
}

function customerTexts(conversation: ConversationText): string[] {
  const customer = conversation.parts.filter((part) => part.role === 'user');
  // A conversation with no customer message (a log of a bot exchange, say) is read whole.
  return (customer.length > 0 ? customer : conversation.parts).map((part) => bodyToText(part.body));
}

function pickCentral(units: readonly Unit[], centroid: TermVector, count: number): Unit[] {
  const scored = units.map((unit, index) => ({ unit, index, score: cosine(unit.vector, centroid) }));
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, count).sort((a, b) => a.index - b.index).map((entry) => entry.unit);
}

function issueOf(units: readonly Unit[]): FoundIssue {
  const centroid: TermVector = new Map();
  for (const unit of units) addInto(centroid, unit.vector);
  const subject = units.find((unit) => unit.isSubject);
  const lead = subject ?? pickCentral(units, centroid, 1)[0]!;
  const body = units.filter((unit) => !unit.isSubject);
  const summaryUnits = pickCentral(body.length > 0 ? body : units, centroid, 3);
  return {
    title: shorten(lead.text, MAX_TITLE_LENGTH),
    summary: shorten(summaryUnits.map((unit) => unit.text).join(' '), MAX_SUMMARY_LENGTH),
    terms: sublinear(centroid),
  };
}

/** The issues of one conversation: at least one, at most MAX_ISSUES_PER_CONVERSATION. */
export function findIssues(conversation: ConversationText): FoundIssue[] {
  const texts = customerTexts(conversation);
  const subject = conversation.subject?.trim() ?? '';
  const language = detectLanguage([subject, ...texts].join('\n'));

  const units: Unit[] = [];
  const addUnit = (text: string, isSubject: boolean) => {
    if (units.length >= MAX_UNITS) return;
    const words = terms(text, language);
    if (new Set(words).size >= MIN_UNIT_TERMS) units.push({ text, vector: vectorOf(words), isSubject });
  };
  if (subject) addUnit(subject, true);
  for (const text of texts) for (const sentence of sentences(text)) addUnit(sentence, false);

  if (units.length === 0) {
    // Nothing but greetings or a word or two: the customer's whole text is the one issue.
    const all = [subject, ...texts].filter(Boolean).join(' ').trim();
    const text = all || 'Conversation without text';
    return [{ title: shorten(text, MAX_TITLE_LENGTH), summary: shorten(text, MAX_SUMMARY_LENGTH), terms: sublinear(vectorOf(terms(text, language))) }];
  }

  const segments: Unit[][] = [[units[0]!]];
  const current: TermVector = new Map(units[0]!.vector);
  for (const unit of units.slice(1)) {
    const turns = !unit.isSubject && TURN_MARKERS.test(unit.text) && cosine(unit.vector, current) < NEW_TOPIC_SIMILARITY;
    if (turns && segments.length < MAX_ISSUES_PER_CONVERSATION) {
      segments.push([unit]);
      current.clear();
    } else {
      segments[segments.length - 1]!.push(unit);
    }
    addInto(current, unit.vector);
  }
  return segments.map(issueOf);
}
