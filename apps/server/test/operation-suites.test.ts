import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { implementedOperations } from '../src/http/handlers/index.js';

/*
 * The operationId is the join key of the codebase: the spec, the handler, the service entry point and the
 * test suite all carry it, so one search finds them all. This checks the last link: every implemented
 * operation has a suite named after it, `describe('<operationId>', ...)` or `describe('<operationId> ...', ...)`.
 */

const serverRoot = fileURLToPath(new URL('..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'generated' ? [] : testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const SUITE_FUNCTIONS = new Set(['describe', 'describeEachDialect']);

/** The titles of `describe(...)`, `describe.<modifier>(...)` and `describeEachDialect(...)` calls, with where they are. */
function suiteTitles(file: string, text: string): Array<{ title: string; where: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const titles: Array<{ title: string; where: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression : node.expression;
      const [first] = node.arguments;
      if (ts.isIdentifier(callee) && SUITE_FUNCTIONS.has(callee.text) && first && ts.isStringLiteralLike(first)) {
        const line = source.getLineAndCharacterOfPosition(first.getStart(source)).line + 1;
        titles.push({ title: first.text, where: `${relative(serverRoot, file)}:${line}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return titles;
}

function isSuiteOf(operationId: string, title: string): boolean {
  return title === operationId || title.startsWith(`${operationId} `);
}

describe('operation suites', () => {
  it('finds suite titles in describe, describe.<modifier> and describeEachDialect calls only', () => {
    const titles = suiteTitles('x.test.ts', [
      "describe('getSpaceById', () => {});",
      'describeEachDialect(`listPages on both dialects`, () => {});',
      "describe.sequential('mergeChangeRequest', () => {});",
      "it('createSpace', () => {});",
      "// describe('updateSpaceById', () => {});",
    ].join('\n'));
    expect(titles.map(({ title }) => title)).toEqual(['getSpaceById', 'listPages on both dialects', 'mergeChangeRequest']);
    expect(isSuiteOf('getSpaceById', 'getSpaceById')).toBe(true);
    expect(isSuiteOf('getSpace', 'getSpaceById')).toBe(false);
    expect(isSuiteOf('listPages', 'listPages on both dialects')).toBe(true);
  });

  it('has a suite named after every implemented operation', () => {
    const implemented = implementedOperations().sort();
    expect(implemented.length).toBeGreaterThan(0);
    const titles = [join(serverRoot, 'src'), join(serverRoot, 'test')]
      .flatMap(testFiles)
      .flatMap((file) => suiteTitles(file, readFileSync(file, 'utf8')));
    const missing = implemented.filter((operationId) => !titles.some(({ title }) => isSuiteOf(operationId, title)));
    expect(missing, `implemented operations without a suite named after them (describe('<operationId>', ...)): ${missing.join(', ')}`).toEqual([]);
  });
});
