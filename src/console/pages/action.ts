/**
 * One action at `/runs/:id/actions/:actionId`: the evidence it rests on, what it would do
 * (tool, arguments, reason, expiry) and what its dry run says would change; for a person
 * who may approve and an action awaiting approval, the Approve / Reject form.
 */
import type { Action } from '../../agent/diagnosis.ts';
import type { RunView } from '../../runs/run-view.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Person } from '../session.ts';
import { actionTarget, culpritLabel, formatTime, statusBadge } from './format.ts';
import { renderLayout } from './layout.ts';
import { renderEvidence } from './run.ts';

export function renderActionPage(input: { person: Person; view: RunView; action: Action }): string {
  const { view, action, person } = input;
  const runPath = `/runs/${encodeURIComponent(view.id)}`;
  return renderLayout({
    title: `Action ${actionTarget(action)}`,
    person,
    main: html`<p class="breadcrumb"><a href="/">Runs</a> <span aria-hidden="true">›</span> <a href="${runPath}">Run <code>${view.id}</code></a> <span aria-hidden="true">›</span> <span>Action</span></p>
<div class="page-head">
  <h1>Action <code>${actionTarget(action)}</code></h1>
  <p>${statusBadge(action.status)}</p>
</div>
<section aria-labelledby="what-title" class="card">
  <h2 id="what-title">What it does</h2>
  <dl class="facts">
    <div><dt>Tool</dt><dd><code>${action.tool}</code></dd></div>
    <div><dt>Risk</dt><dd>${action.risk}</dd></div>
    <div><dt>Expires</dt><dd>${formatTime(action.expiresAt)}</dd></div>
    ${action.decidedBy ? html`<div><dt>Decided by</dt><dd>${action.decidedBy}, ${formatTime(action.decidedAt)}</dd></div>` : ''}
  </dl>
  <h3>Arguments</h3>
  <pre class="code-block"><code>${JSON.stringify(action.args, null, 2)}</code></pre>
  ${action.reason ? html`<h3>Why</h3><p>${action.reason}</p>` : ''}
  ${action.decisionReason ? html`<h3>Reason given with the decision</h3><p>${action.decisionReason}</p>` : ''}
  ${action.result ? html`<h3>Result</h3><pre class="code-block"><code>${action.result}</code></pre>` : ''}
</section>
<section aria-labelledby="diff-title" class="card">
  <h2 id="diff-title">What changes</h2>
  ${renderDiff(action.diff)}
</section>
<section aria-labelledby="evidence-title" class="card">
  <h2 id="evidence-title">The evidence</h2>
  ${
    view.diagnosis
      ? html`<p><strong>${view.diagnosis.category}</strong> · ${culpritLabel(view.diagnosis.culprit)} · confidence ${view.diagnosis.confidence}</p>
  <p class="summary">${view.diagnosis.summary}</p>
  ${renderEvidence(view.diagnosis.evidence)}`
      : html`<p class="muted">The run has no diagnosis yet.</p>`
  }
</section>
${renderDecision({ person, view, action })}`,
  });
}

function renderDiff(diff: readonly string[] | undefined): SafeHtml {
  if (!diff || diff.length === 0) return html`<p class="muted">No dry-run diff was recorded for this action.</p>`;
  return html`<p class="muted small">From a server-side dry run (old → new). A secret's value never appears.</p>
  <ul class="diff" aria-label="Changes from the dry run">${diff.map((line) => html`<li><code>${line}</code></li>`)}</ul>`;
}

function renderDecision(input: { person: Person; view: RunView; action: Action }): SafeHtml {
  const { person, view, action } = input;
  if (action.status !== 'awaiting_approval') {
    return html`<section aria-labelledby="decision-title" class="card"><h2 id="decision-title">Decision</h2><p>This action is ${action.status.replaceAll('_', ' ')}: there is nothing to decide.</p></section>`;
  }
  if (!person.canApprove) {
    return html`<section aria-labelledby="decision-title" class="card"><h2 id="decision-title">Decision</h2>
  <p class="notice-readonly">You are signed in with a read token. Deciding this action needs an <strong>approve</strong> token: sign out and sign in with one.</p></section>`;
  }
  const decisionPath = `/runs/${encodeURIComponent(view.id)}/actions/${encodeURIComponent(action.id)}/decision`;
  return html`<section aria-labelledby="decision-title" class="card decision">
  <h2 id="decision-title">Decision</h2>
  <form method="post" action="${decisionPath}" class="stack">
    <input type="hidden" name="csrf" value="${person.csrf}">
    <div class="field">
      <label for="by">Your name <span class="muted">(optional, recorded beside the token)</span></label>
      <input id="by" name="by" type="text" maxlength="100" pattern="[A-Za-z0-9_ .@+\-]+" autocomplete="name">
    </div>
    <div class="field">
      <label for="reason">Reason <span class="muted">(optional, kept in the audit log)</span></label>
      <textarea id="reason" name="reason" rows="2" maxlength="1000"></textarea>
    </div>
    <div class="decision-buttons">
      <button type="submit" name="decision" value="approved" class="button button-approve">Approve</button>
      <button type="submit" name="decision" value="rejected" class="button button-reject">Reject</button>
    </div>
    <p class="muted small">Approving runs the action against the cluster (dry run first); the decision is recorded with your name, if you give one, and <strong>${person.identity}</strong>.</p>
  </form>
</section>`;
}
