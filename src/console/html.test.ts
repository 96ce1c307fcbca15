import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, html, raw } from './html.ts';

test('every interpolation is escaped, in text and in attribute values', () => {
  const hostile = `<img src=x onerror=alert(1)> " ' \` &amp;`;
  assert.equal(
    html`<p title="${hostile}">${hostile}</p>`.value,
    '<p title="&lt;img src=x onerror=alert(1)&gt; &quot; &#39; &#96; &amp;amp;">&lt;img src=x onerror=alert(1)&gt; &quot; &#39; &#96; &amp;amp;</p>',
  );
});

test('nested html and raw() pass as markup; arrays render item by item; null, undefined and false render nothing', () => {
  const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
  assert.equal(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value, '<ul><li>a&lt;b</li><li>c</li></ul>0');
  assert.equal(html`${raw('<br>')}`.value, '<br>');
});

test('escapeHtml leaves plain text alone', () => {
  assert.equal(escapeHtml('checkout-api in staging → revision 3'), 'checkout-api in staging → revision 3');
});
