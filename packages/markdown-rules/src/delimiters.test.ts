import { describe, expect, it } from 'vitest';
import { inlineDelimiterCount, OFF_THREAD_MARKDOWN_LENGTH, ON_THREAD_INLINE_DELIMITERS, parsesOffThread } from './delimiters.js';

describe('inlineDelimiterCount', () => {
  it('counts the inline delimiters of the densest run of text between blank lines', () => {
    expect(inlineDelimiterCount('')).toBe(0);
    expect(inlineDelimiterCount('*a* _b_ [c](d) `e` ~~f~~ <g>')).toBe(13);
    // A blank line (spaces, tabs and CRs included) ends the run; a line break alone does not.
    expect(inlineDelimiterCount('**a**\n__b__\n \t\r\n*c*')).toBe(8);
    expect(inlineDelimiterCount('*a*\r\n\r\n*b*')).toBe(2);
    expect(inlineDelimiterCount('*a\r\n \t\r\n*b')).toBe(1);
    expect(inlineDelimiterCount(`${'*a'.repeat(10)}\n\n${'[a'.repeat(30)}\n\n\n${'`'.repeat(20)}`)).toBe(30);
    // Other punctuation is not counted.
    expect(inlineDelimiterCount('a (b) {c} # d! e & f > g')).toBe(0);
  });
});

describe('parsesOffThread', () => {
  it('sends long markdown and paragraphs dense with inline delimiters off the event loop', () => {
    expect(parsesOffThread('*a*b'.repeat(ON_THREAD_INLINE_DELIMITERS / 2))).toBe(false);
    expect(parsesOffThread(`${'*a*b'.repeat(ON_THREAD_INLINE_DELIMITERS / 2)}*`)).toBe(true);
    expect(parsesOffThread('<a>'.repeat(ON_THREAD_INLINE_DELIMITERS + 1))).toBe(true);
    // The same delimiters spread over paragraphs are cheap, and stay on the event loop.
    expect(parsesOffThread('*a*b\n\n'.repeat(ON_THREAD_INLINE_DELIMITERS))).toBe(false);
    expect(parsesOffThread('a'.repeat(OFF_THREAD_MARKDOWN_LENGTH - 1))).toBe(false);
    expect(parsesOffThread('a'.repeat(OFF_THREAD_MARKDOWN_LENGTH))).toBe(true);
  });
});
