import type { Nodes, Root } from 'mdast';
import { describe, expect, it } from 'vitest';
import { parseCommonMark } from '../content/markdown-libraries.js';
import { SUMMARY_REPO } from '../../test/support/git-fixtures.js';
import { seededRandom } from '../../bench/seeded-random.js';
import { parseSummary, quickPiece } from './summary-parse.js';

/*
 * The cut parse must read every summary as the whole parse does. Positions differ (each piece counts from
 * 0), and so may `spread` and where one list ends and the next begins: the summary is read item by item, so
 * these are left out of the comparison, and nothing else.
 */
function comparable(node: Nodes): unknown {
  const { position: _position, spread: _spread, ...rest } = node as Nodes & { spread?: unknown };
  if (!('children' in node)) return rest;
  let children = (node.children as Nodes[]).map(comparable) as Array<Record<string, unknown>>;
  if (node.type === 'root') {
    const merged: Array<Record<string, unknown>> = [];
    for (const child of children) {
      const last = merged[merged.length - 1];
      if (last?.type === 'list' && child.type === 'list' && last.ordered === child.ordered) {
        merged[merged.length - 1] = { ...last, children: [...(last.children as unknown[]), ...(child.children as unknown[])] };
      } else merged.push(child);
    }
    children = merged;
  }
  return { ...rest, children };
}

function expectSameAsWhole(summary: string): Root {
  const cut = parseSummary(summary);
  expect(comparable(cut)).toEqual(comparable(parseCommonMark(summary)));
  return cut;
}

/** A summary the shape of the import bench's: sections of chapters of pages, nested lists only. */
function largeSummary(sections: number): string {
  const lines = ['# Table of contents', '', '* [Introduction](README.md)'];
  for (let s = 1; s <= sections; s++) {
    lines.push(`* [Section ${s}](section-${s}/README.md)`);
    for (let c = 1; c <= 3; c++) {
      lines.push(`  * [Chapter ${s}.${c}](section-${s}/chapter-${c}/README.md)`);
      for (let p = 1; p <= 4; p++) lines.push(`    * [Page ${s}.${c}.${p}](section-${s}/chapter-${c}/page-${p}.md)`);
    }
    if (s % 7 === 0) lines.push('', `## Part ${s} <a href="#part-${s}" id="part-${s}"></a>`, '');
  }
  return `${lines.join('\n')}\n`;
}

describe('parseSummary', () => {
  it('reads the summaries of the Git fixtures as the whole parse does', () => {
    expectSameAsWhole(SUMMARY_REPO['SUMMARY.md'] as string);
    expectSameAsWhole('* [Intro](intro.md)\n* [Setup](setup.md)\n');
    expectSameAsWhole('* [Old](README.md)\n* [Old page](old.md)\n');
  });

  it('reads a large nested summary as the whole parse does, cut into pieces', () => {
    const summary = largeSummary(25);
    const cut = expectSameAsWhole(summary);
    // Cut at every top-level item: one list per piece, not one list for the whole summary.
    expect(cut.children.filter((node) => node.type === 'list').length).toBeGreaterThan(25);
  });

  it('does not cut inside fenced code, lazy continuations, quotes or setext headings', () => {
    expectSameAsWhole('* [A](a.md)\n\n```\n* [not an item](x.md)\n# not a heading\n```\n* [B](b.md)\n');
    expectSameAsWhole('~~~~\n* in code\n~~~\n* still in code\n~~~~\n* [C](c.md)\n');
    expectSameAsWhole('* [A](a.md)\n  ```\n* [B](b.md)\n  ```\n* [C](c.md)\n');
    expectSameAsWhole('* [A](a.md)\n2. lazy\n* [B](b.md)\n');
    expectSameAsWhole('> quoted\n* [A](a.md)\n> again\n# Heading\ntext\n---\n* [B](b.md)\n*\n* [C](c.md)\n');
    expectSameAsWhole('Part\n===\n* * *\n- [A](a.md)\n+ [B](b.md)\n1. [C](c.md)\n* [D](d.md)\r\n* [E](e.md)\r\n');
    expectSameAsWhole('#Not a heading\n* [A](a.md)\n    * [B](b.md)\n\n\n* [C](c.md)\n');
  });

  it('parses whole what could carry over between pieces: definitions and HTML blocks', () => {
    const withDefinition = '* [A][a]\n* [B](b.md)\n\n[a]: a.md\n';
    expectSameAsWhole(withDefinition);
    expect(parseSummary(withDefinition).children.filter((node) => node.type === 'list')).toHaveLength(1);
    expectSameAsWhole('<div>\n* [A](a.md)\n\n* [B](b.md)\n');
    expectSameAsWhole('<!--\n* [A](a.md)\n-->\n* [B](b.md)\n');
  });

  it('reads lists of items without parsing them as the whole parse does, and hands anything else to the parser', { timeout: 120_000 }, () => {
    const random = seededRandom(27);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const texts = ['[Page](p.md)', '[Page 1.2.3](dir/p.md#x)', '[A](a.md) and [B](b.md)', 'Group *one*', 'Ünïcode', '![i](i.png)', '[*x*](<a b.md>)', '[ sp ](x.md)', '[a&amp;b](x.md)', '[a\\]b](x.md)', '[](e.md)', '[x](a&amp;.md)', '[u~v](w.md)  ', 'x <b>y</b>', '1. n', '# h', '> q', '- x', '`c`', '---', '<div>'];
    let quick = 0;
    for (let round = 0; round < 400; round++) {
      const lines = [`* ${pick(texts.slice(0, 6))}`];
      let indent = 0;
      for (let i = 0; i < 12; i++) {
        indent = Math.max(0, indent + (random() < 0.02 ? 6 : pick([-6, -4, -2, -1, 0, 0, 0, 1, 2, 2, 3])));
        const text = random() < 0.03 ? pick(texts.slice(14)) : pick(texts.slice(0, 14));
        if (random() < 0.05) lines.push(pick(['', '  ', '\t* [T](t.md)']));
        else lines.push(`${' '.repeat(indent)}${pick(['*', '*', '-', '+'])}${' '.repeat(random() < 0.02 ? 5 : pick([1, 1, 1, 2, 3, 4]))}${text}`);
      }
      const summary = `${lines.join('\n')}\n`;
      if (quickPiece(summary)) quick += 1;
      expectSameAsWhole(summary);
    }
    // Both ways are taken many times.
    expect(quick).toBeGreaterThan(40);
    expect(quick).toBeLessThan(360);
    // The import bench's summary is read without parsing its lists.
    const pieces = largeSummary(3).split(/\n(?=\* )/).slice(1);
    for (const piece of pieces) expect(quickPiece(piece)).toBeDefined();
  });
});
