import { describe, expect, it } from 'vitest';
import { groupGitBookTabs, tabOpenTag } from './gitbook-tabs.js';

/* Trees of mdast's shape written by hand (this package parses nothing): paragraphs of text, a list, code. */
const text = (value: string) => ({ type: 'text', value });
const paragraph = (...children: { type: string; value?: string }[]) => ({ type: 'paragraph', children });
const lines = (...values: string[]) => paragraph(text(values.join('\n')));
const code = { type: 'code', value: 'npm i' };

describe('groupGitBookTabs', () => {
  it('cuts paragraphs at tag lines and groups the tabs, the text after the closing tag kept after the block', () => {
    const grouped = groupGitBookTabs([
      lines('{% tabs %}', '{% tab title="npm" %}', 'Install:'),
      code,
      lines('{% endtab %}', '{% tab title="a "quoted" title" %}', 'B', '{% endtab %}', '{% endtabs %}', 'After.'),
    ]);
    expect(grouped).toEqual([
      {
        type: 'quireTabs',
        children: [
          { type: 'quireTab', title: 'npm', children: [lines('Install:'), code] },
          { type: 'quireTab', title: 'a "quoted" title', children: [lines('B')] },
        ],
      },
      lines('After.'),
    ]);
  });

  it('takes tags back from the end of a list that took them in as lazy lines', () => {
    const list = (last: string) => ({ type: 'list', children: [{ type: 'listItem', children: [lines('one')] }, { type: 'listItem', children: [lines(...last.split('\n'))] }] });
    const grouped = groupGitBookTabs([lines('{% tabs %}', '{% tab title="a" %}'), list('two\n{% endtab %}\n{% endtabs %}')]);
    expect(grouped).toEqual([{ type: 'quireTabs', children: [{ type: 'quireTab', title: 'a', children: [list('two')] }] }]);
  });

  it('leaves every block as it is when the tags make no tabs block', () => {
    const cases = [
      [lines('{% tabs %}', '{% tab title="a" %}', 'never closed')],
      [lines('{% tabs %}', '{% tab title="a" %}', 'A', '{% endtab %}', 'between', '{% tab title="b" %}', 'B', '{% endtab %}', '{% endtabs %}')],
      [lines('{% tabs %}', '{% tab title="a" %}', '{% tabs %}', '{% endtab %}', '{% endtabs %}')],
      [lines('{% tabs %}', '{% endtabs %}')],
      [paragraph(text('{% tabs %}\n{% tab title="'), { type: 'emphasis' }, text('" %}\nA\n{% endtab %}\n{% endtabs %}'))],
      [lines('Text first', '{% tabs %}', '{% tab title="a" %}', 'A', '{% endtab %}', '{% endtabs %}')],
    ];
    for (const blocks of cases) expect(groupGitBookTabs(blocks)).toEqual(blocks);
  });

  it('finds a tabs block after a failed one, starting again at its opening', () => {
    const valid = [lines('{% tabs %}', '{% tab title="a" %}', 'A', '{% endtab %}', '{% endtabs %}')];
    const grouped = groupGitBookTabs([lines('{% tabs %}', 'stray'), ...valid]);
    expect(grouped.map((block) => block.type)).toEqual(['paragraph', 'quireTabs']);
  });
});

describe('tabOpenTag', () => {
  it('escapes the Markdown punctuation of a title and keeps it on one line', () => {
    expect(tabOpenTag('npm')).toBe('{% tab title="npm" %}');
    expect(tabOpenTag('a *b*\n<c> & "d"')).toBe('{% tab title="a \\*b\\* \\<c\\> \\& "d"" %}');
  });
});
