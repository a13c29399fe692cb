import { describe, expect, it } from 'vitest';
import {
  normalizeMarkdown,
  parseGitbookConfig,
  parseSimpleYaml,
  repoPath,
  serializeFrontMatter,
  serializeGitbookConfig,
  slugify,
  splitFrontMatter,
  takeTitle,
  uniqueSlug,
  yamlString,
} from './gitbook-format.js';
import { GitError } from './run-git.js';
import { rewriteLinks } from '../content/markdown/index.js';

describe('.gitbook.yaml', () => {
  it('reads root and structure, with comments and quotes', () => {
    const config = parseGitbookConfig(
      ['# settings', "root: './docs/'  # the content", '', 'structure:', '  readme: intro.md', '  summary: "toc.md"', 'redirects:', '  old: new.md'].join('\n'),
    );
    expect(config).toEqual({ root: './docs/', readme: 'intro.md', summary: 'toc.md' });
  });

  it('falls back to the defaults', () => {
    expect(parseGitbookConfig('')).toEqual({ root: '', readme: 'README.md', summary: 'SUMMARY.md' });
    expect(parseGitbookConfig('structure:\n  readme: start.md\n')).toEqual({ root: '', readme: 'start.md', summary: 'SUMMARY.md' });
  });

  it('writes what it reads', () => {
    const text = serializeGitbookConfig({ root: 'docs', readme: 'README.md', summary: 'SUMMARY.md' });
    expect(text).toBe('root: ./docs/\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n');
    expect(parseGitbookConfig(text)).toEqual({ root: './docs/', readme: 'README.md', summary: 'SUMMARY.md' });
  });

  it('parses nested maps by indentation and skips sequences', () => {
    expect(parseSimpleYaml('a:\n  b:\n    c: 1\n  d: yes\ne: x\nlist:\n  - one\n')).toEqual({ a: { b: { c: 1 }, d: true }, e: 'x', list: {} });
  });
});

describe('front matter and titles', () => {
  it('takes description, icon and hidden, and removes the block', () => {
    const { meta, body } = splitFrontMatter('---\ndescription: "Say: hi"\nicon: rocket\nhidden: true\nlayout: x\n---\n\nText\n');
    expect(meta).toEqual({ description: 'Say: hi', icon: 'rocket', hidden: true });
    expect(body).toBe('\nText\n');
  });

  it('leaves markdown without front matter alone', () => {
    expect(splitFrontMatter('Text\n---\nmore\n')).toEqual({ meta: {}, body: 'Text\n---\nmore\n' });
  });

  it('round-trips values that need quoting', () => {
    for (const description of ['plain words', 'a: colon', 'trailing #hash', 'yes', '42', ' padded', 'quote " and \\ backslash']) {
      const text = `${serializeFrontMatter({ description })}Body\n`;
      expect(splitFrontMatter(text).meta.description).toBe(description);
    }
    expect(yamlString('plain words')).toBe('plain words');
    expect(yamlString('yes')).toBe('"yes"');
  });

  it('takes a first-line H1 as the title, and only that', () => {
    expect(takeTitle('# Install #\n\nText\n')).toEqual({ title: 'Install', body: '\nText\n' });
    expect(takeTitle('Intro\n# Later\n')).toEqual({ body: 'Intro\n# Later\n' });
    expect(takeTitle('## Sub\n')).toEqual({ body: '## Sub\n' });
  });

  it('normalizes line endings, leading blank lines and the final newline', () => {
    expect(normalizeMarkdown('\uFEFF\r\n\r\nA\r\nB\r\n\r\n\r\n')).toBe('A\nB\n');
    expect(normalizeMarkdown('  \n\n')).toBe('');
  });

  it('takes off at the end the same white space as /\\s+$/ did (Unicode spaces and line terminators too)', () => {
    const tails = [' ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u2029', '\u3000', '\ufeff', '\u200b', 'x', '\v\f'];
    for (const a of tails) {
      for (const b of tails) {
        const text = `# T\n\nBody${a}${b}`;
        const old = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').replace(/\s+$/, '');
        expect(normalizeMarkdown(text)).toBe(old === '' ? '' : `${old}\n`);
      }
    }
  });
});

describe('slugs and paths', () => {
  it('slugifies titles and file names', () => {
    expect(slugify('Getting Started!')).toBe('getting-started');
    expect(slugify('Café & Crème')).toBe('cafe-creme');
    expect(slugify('Getting_Started')).toBe('getting-started');
    expect(slugify('???')).toBe('page');
    expect(slugify('a'.repeat(150))).toHaveLength(100);
  });

  it('makes slugs unique among siblings', () => {
    const taken = new Set<string>();
    expect(['intro', 'intro', 'intro'].map((slug) => uniqueSlug(slug, taken))).toEqual(['intro', 'intro-2', 'intro-3']);
  });

  it('normalizes repository paths and refuses escapes', () => {
    expect(repoPath('./docs//guide/')).toBe('docs/guide');
    expect(repoPath('')).toBe('');
    expect(repoPath('a/../b')).toBe('b');
    expect(() => repoPath('../outside')).toThrow(GitError);
    expect(() => repoPath('docs/../../outside')).toThrow(/outside the repository/);
    expect(() => repoPath('/etc')).toThrow(/relative to the repository/);
  });
});

describe('rewriteLinks', () => {
  const upper = (url: string) => (url.startsWith('http') ? undefined : url.toUpperCase());

  it('rewrites inline links, images and definitions in place, and nothing else', () => {
    const source = [
      'See [a](a.md "Title") and ![img](img.png) and [ref][r].',
      '',
      '[![badge](b.png)](c.md)',
      '',
      '`[code](x.md)` and <https://auto.example>',
      '',
      '```',
      '[fenced](y.md)',
      '```',
      '',
      '[r]: r.md',
      '[t](<with space.md>) [ext](https://example.com)',
    ].join('\n');
    expect(rewriteLinks(source, upper)).toBe(
      [
        'See [a](A.MD "Title") and ![img](IMG.PNG) and [ref][r].',
        '',
        '[![badge](B.PNG)](C.MD)',
        '',
        '`[code](x.md)` and <https://auto.example>',
        '',
        '```',
        '[fenced](y.md)',
        '```',
        '',
        '[r]: R.MD',
        '[t](<WITH SPACE.MD>) [ext](https://example.com)',
      ].join('\n'),
    );
  });

  it('handles brackets and parentheses in labels and destinations', () => {
    expect(rewriteLinks('[a [b] `]`](x_(1).md)', () => 'y.md')).toBe('[a [b] `]`](y.md)');
  });
});
