import { describe, expect, it } from 'vitest';
import { classifyLink, resolvePath } from './links.js';

describe('classifyLink', () => {
  it('classifies URLs', () => {
    expect(classifyLink('#usage')).toEqual({ kind: 'anchor', anchor: 'usage' });
    expect(classifyLink('#caf%C3%A9')).toEqual({ kind: 'anchor', anchor: 'café' });
    expect(classifyLink('mailto:a@b.c')).toEqual({ kind: 'url', url: 'mailto:a@b.c' });
    expect(classifyLink('//cdn.example.com/x.js')).toEqual({ kind: 'url', url: '//cdn.example.com/x.js' });
    // Any scheme is an outside address here; the server reads its own `ref:` labels before asking.
    expect(classifyLink('ref:new-page')).toEqual({ kind: 'url', url: 'ref:new-page' });
    expect(classifyLink('/files/abc')).toEqual({ kind: 'file', file: 'abc' });
    expect(classifyLink('/pages/abc#top')).toEqual({ kind: 'page', page: 'abc', anchor: 'top' });
    expect(classifyLink('/pages/abc/')).toEqual({ kind: 'page', page: 'abc' });
    expect(classifyLink('README.md', 'guides/setup')).toEqual({ kind: 'page-path', path: 'guides' });
    expect(classifyLink('deploy/README.md', 'guides/setup')).toEqual({ kind: 'page-path', path: 'guides/deploy' });
    expect(classifyLink('../setup.md#install-it', 'guides/deploy/docker')).toEqual({ kind: 'page-path', path: 'guides/setup', anchor: 'install-it' });
    expect(classifyLink('/api/auth?x=1', 'guides/setup')).toEqual({ kind: 'page-path', path: 'api/auth' });
    expect(classifyLink('../../.gitbook/assets/a%20b.png', 'a/b/c')).toEqual({ kind: 'asset', path: '.gitbook/assets/a b.png' });
    expect(classifyLink('docs/guide.pdf', '')).toEqual({ kind: 'asset', path: 'docs/guide.pdf' });
    // An empty anchor is none; surrounding spaces are not part of the address.
    expect(classifyLink('  intro.md#  ', 'a/b')).toEqual({ kind: 'page-path', path: 'a/intro' });
  });
});

describe('resolvePath', () => {
  it('resolves a path from the linking page as a browser would, never above the root', () => {
    expect(resolvePath('c', 'a/b')).toBe('a/c');
    expect(resolvePath('./c/../d', 'a/b')).toBe('a/d');
    expect(resolvePath('../../../x', 'a/b')).toBe('x');
    expect(resolvePath('/x//y/', 'a/b')).toBe('x/y');
    // Segments are decoded one by one; a malformed escape stays as written.
    expect(resolvePath('a%2Fb/%E0%A4%A', '')).toBe('a/b/%E0%A4%A');
  });
});
