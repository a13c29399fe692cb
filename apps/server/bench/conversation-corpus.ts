import { groupFoundIssues } from '#server/analysis/clustering.js';
import { findIssues, type FoundIssue } from '#server/analysis/issues.js';
import { adjustedRandIndex, purity } from '#server/analysis/metrics.js';
import { ACKNOWLEDGEMENTS, AGENT_REPLIES, CLOSERS, OPENERS, PROBLEMS, TURNS, type CorpusLanguage } from './conversation-corpus-text.js';
import { seededRandom as random } from './seeded-random.js';

/*
 * A labelled set of support conversations, generated deterministically from hand-written phrases
 * (conversation-corpus-text.ts): each conversation raises one problem, or two (one in six), in English,
 * French, German or Spanish, with greetings, support replies and follow-ups around the customer's words;
 * a third of the bodies are HTML. Every issue carries its true label, so a grouping can be scored. The
 * committed fixture test/fixtures/conversations/labelled.json is this generator's output for LABELLED_SET
 * (a test checks they agree), and the benches make larger sets with other seeds.
 */

export interface CorpusConversation {
  id: string;
  subject?: string;
  parts: Array<{ type: 'message'; role: 'user' | 'assistant' | 'team-member'; body: string }>;
  metadata: { createdAt: string; attributes: Record<string, string> };
}

export interface LabelledConversation {
  conversation: CorpusConversation;
  /** The problems raised, in order, with the customer's sentences that tell each. */
  issues: Array<{ label: string; sentences: string[] }>;
}

export interface CorpusOptions {
  count: number;
  seed: number;
  /** Conversations start over the 13 weeks before this date. */
  until?: string;
}

export const LABELLED_SET: Required<CorpusOptions> = { count: 640, seed: 20240601, until: '2024-06-01T00:00:00.000Z' };

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

const LANGUAGES: Array<[CorpusLanguage, number]> = [['en', 0.55], ['fr', 0.15], ['de', 0.15], ['es', 0.15]];

function pickLanguage(next: () => number): CorpusLanguage {
  let roll = next();
  for (const [language, share] of LANGUAGES) {
    if (roll < share) return language;
    roll -= share;
  }
  return 'en';
}

/** Problems are not equally common: a Zipf-like weight by position (1, 1/2^0.7, ...). */
function pickProblem(next: () => number, except?: string): (typeof PROBLEMS)[number] {
  const candidates = PROBLEMS.filter((problem) => problem.label !== except);
  const weights = candidates.map((_, index) => 1 / (index + 1) ** 0.7);
  let roll = next() * weights.reduce((sum, weight) => sum + weight, 0);
  for (let index = 0; index < candidates.length; index++) {
    roll -= weights[index]!;
    if (roll <= 0) return candidates[index]!;
  }
  return candidates[candidates.length - 1]!;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function asBody(next: () => number, paragraphs: string[]): string {
  const kept = paragraphs.filter(Boolean);
  // A third of the messages come from e-mail as HTML, the rest from chat as Markdown or plain text.
  if (next() < 1 / 3) return `<div>${kept.map((paragraph) => `<p>${paragraph.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`).join('')}<p style="color:#999">--<br>Sent from my phone</p></div>`;
  return kept.join('\n\n');
}

export function generateCorpus(options: CorpusOptions): LabelledConversation[] {
  const next = random(options.seed);
  const until = Date.parse(options.until ?? LABELLED_SET.until);
  const span = 13 * 7 * 24 * 3600 * 1000;
  const out: LabelledConversation[] = [];
  for (let index = 0; index < options.count; index++) {
    const language = pickLanguage(next);
    const first = pickProblem(next);
    const problems = next() < 1 / 6 ? [first, pickProblem(next, first.label)] : [first];
    const issues = problems.map((problem) => ({ label: problem.label, sentences: [] as string[] }));

    const telling = pick(next, first.tellings[language]);
    issues[0]!.sentences.push(telling);
    const parts: CorpusConversation['parts'] = [];
    const opening = [pick(next, OPENERS[language]), telling];
    let second: string | undefined;
    if (problems.length === 2) {
      const turn = pick(next, TURNS[language]);
      second = `${turn}${lowerFirst(pick(next, problems[1]!.tellings[language]))}`;
      issues[1]!.sentences.push(second);
    }
    // The second problem comes in the first message, or after a support reply.
    const secondLater = second !== undefined && next() < 0.5;
    if (second && !secondLater) opening.push(second);
    opening.push(pick(next, CLOSERS[language]));
    parts.push({ type: 'message', role: 'user', body: asBody(next, opening) });
    if (next() < 0.8) {
      parts.push({ type: 'message', role: next() < 0.2 ? 'assistant' : 'team-member', body: asBody(next, [pick(next, AGENT_REPLIES[language])]) });
      const reply = [pick(next, ACKNOWLEDGEMENTS[language])];
      if (next() < 0.6) {
        const followUp = pick(next, first.followUps[language]);
        issues[0]!.sentences.push(followUp);
        reply.push(followUp);
      }
      if (second && secondLater) reply.push(second);
      parts.push({ type: 'message', role: 'user', body: asBody(next, reply) });
    } else if (second && secondLater) {
      parts.push({ type: 'message', role: 'user', body: asBody(next, [second]) });
    }

    const subjectRoll = next();
    const subject = subjectRoll < 0.55 ? pick(next, first.subjects[language]) : subjectRoll < 0.65 ? pick(next, ['Urgent', 'Help', 'Question', 'Support request']) : undefined;
    if (subject && subjectRoll < 0.55) issues[0]!.sentences.push(subject);
    const startedAt = new Date(until - Math.floor(next() * span)).toISOString();
    out.push({
      conversation: {
        id: `conv-${options.seed}-${index}`,
        ...(subject ? { subject } : {}),
        parts,
        metadata: { createdAt: startedAt, attributes: { language, channel: parts[0]!.body.startsWith('<div>') ? 'email' : 'chat' } },
      },
      issues,
    });
  }
  return out;
}

export interface GroupingScore {
  threshold: number;
  conversations: number;
  trueIssues: number;
  foundIssues: number;
  /** Share of conversations where as many issues were found as were raised. */
  issueCountAccuracy: number;
  clusters: number;
  /** Against the problem and the language of each issue: what grouping by the customers' words can reach. */
  byLanguage: { trueClusters: number; purity: number; adjustedRandIndex: number };
  /** Against the problem alone (the same problem in two languages is one true cluster). */
  byProblem: { trueClusters: number; purity: number; adjustedRandIndex: number };
}

function normalise(text: string): string {
  return text.replace(/…$/u, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The true label of a found issue: the raised problem whose sentences hold its title or summary, else the first one. */
function labelOf(found: { title: string; summary: string }, raised: LabelledConversation['issues']): string {
  const title = normalise(found.title).slice(0, 60);
  const summary = normalise(found.summary).slice(0, 60);
  for (const issue of raised) {
    const text = normalise(issue.sentences.join(' '));
    if ((title.length > 0 && text.includes(title)) || (summary.length > 0 && text.includes(summary))) return issue.label;
  }
  return raised[0]!.label;
}

/** The issues found in each conversation of the set (the slow part, done once for every threshold tried). */
export function findSetIssues(set: readonly LabelledConversation[]): Array<{ key: string; issues: FoundIssue[] }> {
  return set.map(({ conversation }) => ({ key: conversation.id, issues: findIssues(conversation) }));
}

function agreement(predicted: readonly string[], truth: readonly string[]): { trueClusters: number; purity: number; adjustedRandIndex: number } {
  return { trueClusters: new Set(truth).size, purity: purity(predicted, truth), adjustedRandIndex: adjustedRandIndex(predicted, truth) };
}

/** Groups the whole set in one batch, in order, and scores the clusters against the true labels. */
export function scoreGrouping(set: readonly LabelledConversation[], threshold: number, found = findSetIssues(set)): GroupingScore {
  const output = groupFoundIssues({ threshold, clusters: [], termIssues: {}, issueCount: 0, conversations: [] }, found);
  const predicted: string[] = [];
  const byProblem: string[] = [];
  const byLanguage: string[] = [];
  let exactCounts = 0;
  output.issues.forEach(({ issues }, index) => {
    const { conversation, issues: raised } = set[index]!;
    if (issues.length === raised.length) exactCounts++;
    for (const issue of issues) {
      const label = labelOf(issue, raised);
      predicted.push(issue.cluster);
      byProblem.push(label);
      byLanguage.push(`${label}/${conversation.metadata.attributes.language}`);
    }
  });
  return {
    threshold,
    conversations: set.length,
    trueIssues: set.reduce((sum, item) => sum + item.issues.length, 0),
    foundIssues: predicted.length,
    issueCountAccuracy: exactCounts / Math.max(1, set.length),
    clusters: new Set(predicted).size,
    byLanguage: agreement(predicted, byLanguage),
    byProblem: agreement(predicted, byProblem),
  };
}

/** Splits the set in two halves by a seeded shuffle: [training, test]. */
export function splitSet(set: readonly LabelledConversation[], seed: number): [LabelledConversation[], LabelledConversation[]] {
  const next = random(seed);
  const shuffled = set.map((item) => ({ item, key: next() })).sort((a, b) => a.key - b.key).map((entry) => entry.item);
  const half = Math.floor(shuffled.length / 2);
  return [shuffled.slice(0, half), shuffled.slice(half)];
}

export const SPLIT_SEED = 7;
export const THRESHOLD_GRID = Array.from({ length: 23 }, (_, index) => Math.round((0.05 + index * 0.025) * 1000) / 1000);

/**
 * The threshold of the grid with the best adjusted Rand index against problem and language on `training`
 * (ties to the lower threshold), with the score of every threshold tried.
 */
export function learnThreshold(training: readonly LabelledConversation[]): { best: GroupingScore; grid: GroupingScore[] } {
  const found = findSetIssues(training);
  const grid = THRESHOLD_GRID.map((threshold) => scoreGrouping(training, threshold, found));
  const best = grid.reduce((top, score) => (score.byLanguage.adjustedRandIndex > top.byLanguage.adjustedRandIndex + 1e-12 ? score : top));
  return { best, grid };
}
