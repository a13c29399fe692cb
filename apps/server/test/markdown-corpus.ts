/*
 * Markdown that the content tests write, as samples and as a seeded generator of pages made of every kind
 * of block the document format has, nested in lists and quotes: the corpus of the document format's
 * properties (test/document-format.test.ts).
 */
import { seededRandom } from '../bench/seeded-random.js';

export const MARKDOWN_SAMPLES: readonly string[] = [
  `# Getting started

Some *italic*, **bold**, ~~gone~~ and \`code\`, a [link](https://example.com "Example") and https://auto.example.org
on two lines\\
after a hard break.

## Lists

- [ ] to do
- [x] done

1. one
2. two
   - nested *item*
   - another

> A quote
> over lines

> [!WARNING]
> Mind the **gap**.

{% hint style="success" %}
All good.
{% endhint %}

| Name | Size |
|:-----|-----:|
| a    | 1    |
| **b** | 2   |

![Diagram](.gitbook/assets/diagram.png "The diagram") ![Logo](/files/f123)

See [the setup](../setup.md#install), [a page](/pages/p42), [ref][docs] and an inline ![icon](icon.svg) image.

[docs]: https://docs.example.com

Footnote here[^note].

[^note]: The note.

<details>raw html</details>

---

\`\`\`ts title="x.ts"
const a = 1;

console.log(a);
\`\`\`
`,
  '# Guide\n\nFirst paragraph.\n\n| Name | Value |\n| ---- | ----- |\n| a    | 1     |\n| b    | 2     |\n',
  '#### Four\n\n##### Five\n\n###### Six *emphasis*\n',
  '| *Styled* | [linked](https://x.example) | plain |\n| :-: | --: | :-- |\n| 1 | | 3 |\n| only one |\n',
  '|  |  |\n| - | - |\n| headless | table |\n',
  '3. [ ] numbered task\n4. [x] done task\n',
  '- loose\n\n- list\n\n  with two paragraphs\n',
  '1. tight\n   1. nested numbered\n      - and bulleted\n',
  '> outer\n>\n> > inner quote\n>\n> - list in quote\n',
  '![alone](https://img.example/a.png)\n\n![anchor image](#top) ![page image](/pages/p1)\n',
  'Links: [anchor](#usage), [file](/files/f9), [mail](mailto:a@b.c), <https://auto.example>.\n',
  '```\nno language\n```\n\n```sh\n$ npm i\n```\n',
  'A line with a <kbd>key</kbd> and a footnote[^1].\n\n[^1]: Said *here*.\n',
  // GitBook's tabs as its editor writes them (tags sharing paragraphs), with blocks nested in the tabs.
  '{% tabs %}\n{% tab title="npm" %}\nnpm install *quire*\n\n{% hint style="info" %}\nNeeds Node 20.\n{% endhint %}\n{% endtab %}\n\n{% tab title="Yarn & \\"pnpm\\"" %}\n- one\n- two\n\n```sh\nyarn add quire\n```\n{% endtab %}\n{% endtabs %}\n',
  '# Tabs\n\n{% tabs %}\n\n{% tab title="" %}\n\n{% endtab %}\n\n{% tab title="Table" %}\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n{% endtab %}\n\n{% endtabs %}\n\nAfter.\n',
  '',
];

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'Quire', 'page', 'docs', 'x', '42', 'émoji'];

/** Pages of random blocks (headings of every level, paragraphs with every inline, lists, quotes, hints, tables, images, code...). */
export function generateMarkdown(seed: number, count: number): string[] {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const words = (min: number, max: number) => Array.from({ length: int(min, max) }, () => pick(WORDS)).join(' ');
  const inline = (): string =>
    pick([
      () => words(1, 4),
      () => `*${words(1, 2)}*`,
      () => `**${words(1, 2)}**`,
      () => `~~${words(1, 2)}~~`,
      () => `\`${words(1, 2)}\``,
      () => `**${words(1, 1)} *${words(1, 1)}***`,
      () => `[${words(1, 2)}](${pick(['https://example.com/a', '/pages/p7', '#anchor', '/files/f3', '../other.md'])})`,
      () => `![${words(1, 1)}](${pick(['https://img.example/i.png', '/files/f4', 'local.png'])})`,
    ])();
  const paragraph = () => Array.from({ length: int(1, 4) }, inline).join(' ');
  const table = () => {
    const columns = int(1, 3);
    const row = (cells: () => string) => `| ${Array.from({ length: columns }, cells).join(' | ')} |`;
    const aligns = Array.from({ length: columns }, () => pick(['---', ':--', '--:', ':-:'])).join(' | ');
    return [row(() => pick([words(1, 2), `**${words(1, 1)}**`, ''])), `| ${aligns} |`, ...Array.from({ length: int(0, 3) }, () => row(() => pick([inline(), ''])))].join('\n');
  };
  const leaf = (): string =>
    pick([
      paragraph,
      paragraph,
      () => `${'#'.repeat(int(1, 6))} ${words(1, 3)}`,
      () => `\`\`\`${pick(['', 'js', 'sh'])}\n${Array.from({ length: int(1, 3) }, () => words(0, 3)).join('\n')}\n\`\`\``,
      () => '---',
      table,
      () => `![${words(1, 1)}](/files/f${int(1, 9)}) ![${words(1, 1)}](https://img.example/${int(1, 9)}.png)`,
      () => `${words(1, 2)}  \n${words(1, 2)}`,
    ])();
  const indent = (text: string, by: string) => text.split('\n').map((line) => (line ? by + line : line)).join('\n');
  const block = (depth: number): string => {
    if (depth >= 3) return leaf();
    return pick([
      leaf,
      leaf,
      () => {
        const ordered = next() < 0.4;
        const task = next() < 0.3;
        const loose = next() < 0.3;
        return Array.from({ length: int(1, 3) }, (_, index) => {
          const marker = ordered ? `${index + 1}. ` : '- ';
          const body = (task ? `[${pick([' ', 'x'])}] ` : '') + paragraph() + (next() < 0.3 ? `\n\n${block(depth + 1)}` : '');
          return marker + indent(body, ' '.repeat(marker.length)).slice(marker.length);
        }).join(loose ? '\n\n' : '\n');
      },
      () => indent(`${block(depth + 1)}\n\n${paragraph()}`, '> ').replace(/^$/gm, '>'),
      () => `> [!${pick(['NOTE', 'TIP', 'WARNING', 'CAUTION'])}]\n> ${paragraph()}`,
      () => `{% hint style="${pick(['info', 'warning', 'danger', 'success'])}" %}\n${paragraph()}\n{% endhint %}`,
    ])();
  };
  return Array.from({ length: count }, () => `${Array.from({ length: int(1, 6) }, () => block(0)).join('\n\n')}\n`);
}
