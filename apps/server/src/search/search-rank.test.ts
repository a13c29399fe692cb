import { describe, expect, it } from 'vitest';
import { idfOf, impactOf, MAX_POSTINGS_PER_SECTION, POSTING_MIN_IMPACT, queryImpacts, rankTerms, sectionPostings, sectionWords } from './search-rank.js';

const words = (count: number, prefix = 'w'): string => Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(' ');

describe('search ranking', () => {
  it('weighs a page title above a heading above a body, shorter columns above longer ones', () => {
    const inTitle = impactOf([1, 0, 0], [4, 3, 50]);
    const inHeading = impactOf([0, 1, 0], [4, 3, 50]);
    const inBody = impactOf([0, 0, 1], [4, 3, 50]);
    expect(inTitle).toBeGreaterThan(inHeading);
    expect(inHeading).toBeGreaterThan(inBody);
    expect(impactOf([0, 0, 1], [4, 3, 20])).toBeGreaterThan(impactOf([0, 0, 1], [4, 3, 200]));
    // More occurrences weigh more, with diminishing returns.
    const once = impactOf([0, 0, 1], [0, 0, 50]);
    const twice = impactOf([0, 0, 2], [0, 0, 50]);
    expect(twice).toBeGreaterThan(once);
    expect(twice).toBeLessThan(2 * once);
    // Rarer words weigh more.
    expect(idfOf(3, 1000)).toBeGreaterThan(idfOf(300, 1000));
    expect(idfOf(1000, 1000)).toBeGreaterThan(0);
  });

  it('matches a section only when it holds every word, the last one possibly as a prefix', () => {
    const section = sectionWords('Installing Quire', 'On Linux', 'Download the package, then run the installer.');
    expect(queryImpacts(section, rankTerms(['quire', 'linux'], false))).toHaveLength(2);
    expect(queryImpacts(section, rankTerms(['quire', 'windows'], false))).toBeUndefined();
    expect(queryImpacts(section, rankTerms(['packa'], false))).toBeUndefined();
    const [prefixImpact] = queryImpacts(section, rankTerms(['INSTAL'], true))!;
    // The best of the words it starts: `installing`, in the page title.
    expect(prefixImpact).toBe(impactOf(section.counts.get('installing')!, section.lengths));
  });

  it('lists a section under the words whose impact reaches the threshold, never more than the bound', () => {
    const short = sectionPostings(sectionWords('Guide', 'Setup', 'install the tool'));
    expect(short.map((p) => p.term).sort()).toEqual(['guide', 'install', 'setup', 'the', 'tool']);
    for (const posting of short) expect(posting.impact).toBeGreaterThanOrEqual(POSTING_MIN_IMPACT);
    // A once-mentioned word of a long body is below it.
    const long = sectionPostings(sectionWords('', '', `${words(200)} rare`));
    expect(long.map((p) => p.term)).not.toContain('rare');
    // The worst cases for each column and for all three: many distinct words, each repeated just enough.
    let most = 0;
    for (const length of [1, 5, 10, 20, 50, 100, 300, 1000, 3000]) {
      for (const repeat of [1, 2, 3, 5, 8, 13, 20]) {
        const text = Array.from({ length: Math.ceil(length / repeat) }, (_, i) => Array(repeat).fill(`t${i}`).join(' ')).join(' ');
        for (const [title, heading, body] of [[text, '', ''], ['', text, ''], ['', '', text], [text, text.replaceAll('t', 'h'), text.replaceAll('t', 'b')]]) {
          most = Math.max(most, sectionPostings(sectionWords(title!, heading!, body!)).length);
        }
      }
    }
    expect(most).toBeGreaterThan(20);
    expect(most).toBeLessThanOrEqual(MAX_POSTINGS_PER_SECTION);
  });
});
