import { describe, expect, it } from 'vitest';
import { renderMarkdown, type RenderInput } from './markdown.js';

function render(markdown: string, extra: Partial<RenderInput> = {}) {
  return renderMarkdown({ markdown, pagePath: 'guide/intro', pages: {}, files: {}, ...extra });
}

/** Anything in HTML that would run script: tags, event handlers, script URLs, framing, style/SVG payloads. */
function expectNoScript(html: string) {
  expect(html).not.toMatch(/<script/i);
  // Serialized HTML escapes `<` in text, so every `<` starts a real tag: look inside tags only.
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/<[a-z][^>]*(javascript|vbscript|data):/i);
  expect(html).not.toMatch(/<(iframe|object|embed|svg|style|form|base|meta|link)\b/i);
}

describe('renderMarkdown', () => {
  it('renders GFM: headings with stable anchors, tables, task lists, strikethrough', () => {
    const out = render('# Title\n\n## Install it\n\n## Install it\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~\n');
    expect(out.headings).toEqual([
      { depth: 1, id: 'title', text: 'Title' },
      { depth: 2, id: 'install-it', text: 'Install it' },
      { depth: 2, id: 'install-it-1', text: 'Install it' },
    ]);
    expect(out.html).toContain('<h2 id="install-it">');
    expect(out.html).toContain('<table>');
    expect(out.html).toContain('type="checkbox"');
    expect(out.html).toContain('<del>old</del>');
  });

  it('highlights code by its language at render time', () => {
    const out = render('```js\nconst a = 1;\n```\n');
    expect(out.html).toContain('class="hljs language-js"');
    expect(out.html).toContain('<span class="hljs-keyword">const</span>');
    // An unknown language is shown as plain code, not an error.
    expect(render('```nosuchlang\nx\n```\n').html).toContain('<code class="hljs language-nosuchlang">x');
  });

  it('turns GitBook hint tags and GitHub alerts into hints', () => {
    const gitbook = render('{% hint style="warning" %}\nMind the **gap**.\n{% endhint %}\n').html;
    expect(gitbook).toContain('<div class="hint hint-warning" role="note" aria-label="Warning"><p>Mind the <strong>gap</strong>.</p></div>');
    const spaced = render('{% hint style="success" %}\n\nAll good.\n\nReally.\n\n{% endhint %}\n').html;
    expect(spaced).toContain('<div class="hint hint-success" role="note" aria-label="Success"><p>All good.</p><p>Really.</p></div>');
    const alert = render('> [!CAUTION]\n> Hot surface.\n').html;
    expect(alert).toContain('<div class="hint hint-danger" role="note" aria-label="Danger"><p>Hot surface.</p></div>');
    // A tag never closed stays text; an unknown style is an info hint.
    expect(render('{% hint style="info" %}\n\nNever closed.\n').html).toContain('{% hint style="info" %}');
    expect(render('{% hint style="weird" %}\nx\n{% endhint %}\n').html).toContain('hint-info');
  });

  it('renders GitBook tabs as the WAI-ARIA tabs pattern, every panel in the page and readable without script', () => {
    const out = render(
      '# Install\n\n{% tabs %}\n{% tab title="npm" %}\nnpm i *quire*\n\n{% hint style="info" %}\nNode 20.\n{% endhint %}\n{% endtab %}\n\n{% tab title="yarn" %}\n```sh\nyarn add quire\n```\n{% endtab %}\n{% endtabs %}\n',
    ).html;
    expect(out).toContain(
      '<div class="tabset" id="tabs.install.1"><div role="tablist" class="tabset-list">' +
        '<button type="button" role="tab" class="tabset-tab" id="tabs.install.1-tab-1" aria-controls="tabs.install.1-panel-1" aria-selected="true" tabindex="0">npm</button>' +
        '<button type="button" role="tab" class="tabset-tab" id="tabs.install.1-tab-2" aria-controls="tabs.install.1-panel-2" aria-selected="false" tabindex="-1">yarn</button></div>' +
        '<div class="tabset-panel" role="tabpanel" id="tabs.install.1-panel-1" aria-labelledby="tabs.install.1-tab-1" tabindex="0"><p class="tabset-title">npm</p><p>npm i <em>quire</em></p>' +
        '<div class="hint hint-info" role="note" aria-label="Info"><p>Node 20.</p></div></div>' +
        '<div class="tabset-panel" role="tabpanel" id="tabs.install.1-panel-2" aria-labelledby="tabs.install.1-tab-2" tabindex="0"><p class="tabset-title">yarn</p><pre><code class="hljs language-sh">',
    );
    // No panel is hidden in the HTML: without JavaScript every tab is read in turn.
    expect(out).not.toContain('hidden');
    // Ids are unique on the page: numbered per block after its heading, never a heading's anchor.
    const two = render('{% tabs %}\n{% tab title="a" %}\nA\n{% endtab %}\n{% endtabs %}\n\n# Tabs 1\n\n{% tabs %}\n{% tab title="b" %}\nB\n{% endtab %}\n{% endtabs %}\n').html;
    const ids = [...two.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]);
    expect(ids).toEqual(['tabs.1', 'tabs.1-tab-1', 'tabs.1-panel-1', 'tabs-1', 'tabs.tabs-1.1', 'tabs.tabs-1.1-tab-1', 'tabs.tabs-1.1-panel-1']);
    // Tags that make no tabs block stay text, as the server's content model reads them.
    expect(render('{% tabs %}\n{% tab title="a" %}\nNever closed.\n').html).toBe('<p>{% tabs %}\n{% tab title="a" %}\nNever closed.</p>');
  });

  it("keeps a table's alignment from its Markdown (the stylesheet follows it), and gives none otherwise", () => {
    const aligned = render('| a | b | c |\n| :-- | :-: | --: |\n| 1 | 2 | 3 |\n').html;
    expect(aligned).toContain('<th align="left">a</th>\n<th align="center">b</th>\n<th align="right">c</th>');
    expect(aligned).toContain('<td align="center">2</td>');
    expect(render('| a | b |\n| --- | --- |\n| 1 | 2 |\n').html).not.toContain('align');
  });

  it('names the state of task list checkboxes', () => {
    const html = render('- [x] shipped\n- [ ] to ship\n').html;
    expect(html).toContain('<input type="checkbox" checked disabled aria-label="Done"> shipped');
    expect(html).toContain('<input type="checkbox" disabled aria-label="Not done"> to ship');
  });

  it('resolves links to pages and files, shows broken links as text', () => {
    const out = render(
      '[by id](/pages/p1) [by path](../setup.md#install-it) [gone](/pages/nope) [ext](https://example.com) [top](#title)\n\n![Diagram](.gitbook/assets/diagram.png) ![Missing](/files/nope)\n',
      {
        pages: { 'id:p1': '/sites/docs/first', 'path:setup': '/sites/docs/setup' },
        files: { 'path:.gitbook/assets/diagram.png': { href: '/sites/docs/~files/f1', name: 'diagram.png', width: 640.4, height: 480 } },
      },
    );
    expect(out.html).toContain('<a href="/sites/docs/first">by id</a>');
    expect(out.html).toContain('<a href="/sites/docs/setup#install-it">by path</a>');
    expect(out.html).toContain('<span class="broken-link">gone</span>');
    expect(out.html).toContain('<a href="https://example.com">ext</a>');
    expect(out.html).toContain('<a href="#title">top</a>');
    expect(out.html).toContain('<img src="/sites/docs/~files/f1" alt="Diagram" loading="lazy" width="640" height="480">');
    expect(out.html).toContain('<span class="broken-image">Missing</span>');
  });

  it('lets no script through from hostile Markdown', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(1)">',
      '<a href="javascript:alert(1)">raw</a>',
      '[md link](javascript:alert(1)) [encoded](jav&#x61;script:alert(1)) [spaced]( javascript:alert(1))',
      '[vb](vbscript:msgbox(1)) [data](data:text/html;base64,PHNjcmlwdD4=)',
      '![img](javascript:alert(1)) ![svg](data:image/svg+xml,<svg onload=alert(1)>)',
      '<svg><script>alert(1)</script></svg>',
      '<iframe src="https://evil.example"></iframe>',
      '<div onclick="alert(1)" style="background:url(javascript:alert(1))">x</div>',
      '<style>body{display:none}</style>',
      '<form action="https://evil.example"><input></form>',
      '[ref]: javascript:alert(1)\n\n[click][ref]',
      '```html\n<script>alert(1)</script>\n```',
      '{% hint style="info\\" onclick=\\"alert(1)" %}\nx\n{% endhint %}',
      '# <img src=x onerror=alert(1)> heading',
      '<details open ontoggle=alert(1)>x</details>',
      '{% tabs %}\n{% tab title="\\<img src=x onerror=alert(1)> \\" onclick=\\"alert(1)" %}\n<script>alert(1)</script>\n{% endtab %}\n{% endtabs %}',
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    ].join('\n\n');
    const out = render(hostile);
    expectNoScript(out.html);
    // The code block shows the script as text, escaped.
    expect(out.html).toContain('&#x3C;');
    // A hostile tab title is the tab's text, escaped, in its button and its panel.
    expect(out.html).toContain('aria-selected="true" tabindex="0">&#x3C;img src=x onerror=alert(1)> " onclick="alert(1)</button>');
  });

  it('refuses to render past the size bound', () => {
    const out = render('a'.repeat(1_000_001));
    expect(out.html).toContain('too long');
  });
});
