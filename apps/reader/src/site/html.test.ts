import { describe, expect, it } from 'vitest';
import { escapeHtml, safeColor, safeUrl } from './html.js';

// The API validates customizations when they are written, but the reader renders whatever an API answers
// (an older install, a remote API): it keeps only values that cannot run script or leave their place.
describe('customization values on a page', () => {
  it('keeps http(s) and relative addresses, drops javascript:, data: and vbscript:', () => {
    expect(safeUrl('https://cdn.example.com/logo.png')).toBe('https://cdn.example.com/logo.png');
    expect(safeUrl('/sites/docs/setup')).toBe('/sites/docs/setup');
    for (const hostile of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)']) {
      expect(safeUrl(hostile), hostile).toBeUndefined();
    }
    expect(safeUrl(undefined)).toBeUndefined();
  });

  it('keeps colours that cannot leave their declaration', () => {
    expect(safeColor('#112233')).toBe('#112233');
    expect(safeColor(' rgb(1, 2, 3) ')).toBe('rgb(1, 2, 3)');
    for (const hostile of ['red;}body{display:none', '#000;background:url(x)', 'expression(alert(1))', '</style><script>']) {
      expect(safeColor(hostile), hostile).toBeUndefined();
    }
  });

  it('escapes text and attribute values', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
