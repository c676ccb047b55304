import * as assert from 'node:assert/strict';
import { escapeMarkdown } from '../../../src/ui/markdownText';

const PAYLOADS = [
  '[click me](command:sessionHandoff.applyFix?%5B%22x%22%5D)',
  '![img](https://evil.example/x.png)',
  '<img src=x onerror="alert(1)"><script>alert(2)</script>',
  'visit https://evil.example or www.evil.example',
  '# heading\n===\n- list\n1. item\n> quote\n```js\ncode\n```',
  '$(bug) &lt;entity&gt; *bold* _em_ ~~strike~~ `code` | table |',
];

describe('escapeMarkdown (tooltips built from artifact text)', () => {
  for (const text of PAYLOADS) {
    it(`leaves no Markdown, HTML, link or icon syntax active: ${JSON.stringify(text.slice(0, 30))}`, () => {
      const out = escapeMarkdown(text);
      // CommonMark: a backslash before ASCII punctuation makes it a literal character. Every one of them
      // is escaped, so no construct (link, image, tag, autolink, heading, list, fence, icon) can form.
      const punct = /[!-/:-@[-`{-~]/;
      for (let i = 0; i < out.length; i++) {
        const ch = out[i]!;
        if (ch === '\\') {
          assert.match(out[i + 1] ?? '', punct, `a lone backslash at ${i} in ${out}`);
          i++;
        } else {
          assert.doesNotMatch(ch, punct, `unescaped ${ch} at ${i} in ${out}`);
        }
      }
      // And it reads back as exactly the text (line breaks become hard breaks).
      assert.equal(out.replace(/ {2}\n/g, '\n').replace(/\\([!-/:-@[-`{-~])/g, '$1'), text);
    });
  }
});
