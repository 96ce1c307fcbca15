/** The sign-in page: one labelled password field for a read or approve token. */
import { html } from '../html.ts';
import { renderLayout } from './layout.ts';

export function renderLoginPage(input: { next: string; error?: string }): string {
  return renderLayout({
    title: 'Sign in',
    main: html`<div class="narrow">
<h1>Sign in</h1>
<p class="lead">Paste a kubewhy token. A <strong>read</strong> token shows runs and their evidence; an <strong>approve</strong> token also lets you approve or reject held actions.</p>
${input.error ? html`<div class="alert alert-error" role="alert" id="login-error"><p>${input.error}</p></div>` : ''}
<form method="post" action="/login" class="stack">
  <input type="hidden" name="next" value="${input.next}">
  <div class="field">
    <label for="token">Token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required spellcheck="false" ${input.error ? html`aria-invalid="true" aria-describedby="login-error"` : ''}>
  </div>
  <button type="submit" class="button button-primary">Sign in</button>
</form>
<p class="muted small">The token is kept in a cookie that scripts cannot read, for eight hours or until you sign out.</p>
</div>`,
  });
}
