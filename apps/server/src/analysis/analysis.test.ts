import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateCorpus, LABELLED_SET } from '../../bench/conversation-corpus.js';
import { groupBatch } from './clustering.js';
import { findIssues } from './issues.js';
import { adjustedRandIndex, purity } from './metrics.js';
import { bodyToText, detectLanguage, terms } from './text.js';

describe('analysis', () => {
  it('the committed labelled set is the generator output', () => {
    const fixture = JSON.parse(readFileSync(new URL('../../test/fixtures/conversations/labelled.json', import.meta.url), 'utf8')) as { conversations: unknown };
    expect(fixture.conversations).toEqual(generateCorpus(LABELLED_SET));
  });

  it('turns Markdown and HTML bodies into text with a parser, dropping scripts and styles', () => {
    expect(bodyToText('<div><p>Hello&nbsp;<b>team</b></p><script>alert(1)</script><style>p{}</style><p>SSO &amp; SAML</p></div>')).toBe('Hello team\nSSO & SAML');
    expect(bodyToText('# Title\n\n* one **bold**\n* two <i>x</i>\n\n```\ncode\n```')).toBe('Title\none bold\ntwo x\ncode');
    expect(bodyToText('>'.repeat(5000) + ' deep')).toContain('deep');
  });

  it('detects the language, drops stop words and stems', () => {
    expect(detectLanguage('Je ne peux plus me connecter avec le SSO depuis ce matin')).toBe('fra');
    expect(terms('The passwords were reset', 'eng')).toEqual(['password', 'reset']);
    expect(terms('Die Passwörter wurden zurückgesetzt', 'deu')).toEqual(['passwort', 'zuruckgesetzt']);
  });

  it('finds one issue per subject the customer raises, in their own words', () => {
    const found = findIssues({ parts: [{ role: 'user', body: 'Hi! Our SAML SSO login fails with error 500. Also, the PDF export never finishes.' }, { role: 'team-member', body: 'We are looking into the SSO problem.' }] });
    expect(found.map((issue) => issue.title)).toEqual(['Our SAML SSO login fails with error 500.', 'Also, the PDF export never finishes.']);
    expect(findIssues({ parts: [{ role: 'user', body: 'Thanks!' }] })).toHaveLength(1);
  });

  it('groups deterministically', () => {
    const conversations = generateCorpus({ count: 80, seed: 5 }).map(({ conversation }) => ({ key: conversation.id, ...conversation }));
    const input = { clusters: [], termIssues: {}, issueCount: 0, conversations };
    expect(groupBatch(input)).toEqual(groupBatch(input));
  });

  it('scores groupings', () => {
    expect(purity(['a', 'a', 'b', 'b'], ['x', 'x', 'y', 'y'])).toBe(1);
    expect(adjustedRandIndex(['a', 'a', 'b', 'b'], ['x', 'x', 'y', 'y'])).toBe(1);
    expect(adjustedRandIndex(['a', 'b', 'a', 'b'], ['x', 'x', 'y', 'y'])).toBeLessThan(0);
    expect(purity(['a', 'a', 'a', 'a'], ['x', 'x', 'y', 'y'])).toBe(0.5);
  });
});
