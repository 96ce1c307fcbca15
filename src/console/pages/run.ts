/**
 * One run at `/runs/:id`: what it found (diagnosis, evidence, what was not found), what
 * it proposes or holds (actions, held ones linking to their page), and how it got there
 * (the trail, the alerts, the cluster, the audit chain and whether it verifies).
 */
import type { RunView } from '../../runs/run-view.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Person } from '../session.ts';
import { actionTarget, culpritLabel, formatTime, statusBadge, triggerLabel } from './format.ts';
import { renderLayout } from './layout.ts';
import { renderAlerts, renderAuditChain, renderCluster, renderTrail, type ChainView } from './run-sections.ts';
import type { TrailEntry } from '../trail.ts';

/** What a decision made on the action page tells the person on the run page. */
export const NOTICES = {
  approved: { tone: 'success', text: 'Approved: the action runs now (dry run, then for real), and the run goes on.' },
  rejected: { tone: 'success', text: 'Rejected: the action will not run, and the run goes on without it.' },
  'not-pending': { tone: 'error', text: 'Nothing was decided: the action is no longer awaiting approval.' },
} as const;
export type NoticeCode = keyof typeof NOTICES;

export function renderRunPage(input: {
  person: Person;
  view: RunView;
  trail: readonly TrailEntry[];
  chain: ChainView;
  notice?: NoticeCode;
}): string {
  const { view } = input;
  const diagnosis = view.diagnosis;
  const notice = input.notice ? NOTICES[input.notice] : undefined;
  return renderLayout({
    title: `Run ${view.id}`,
    person: input.person,
    main: html`<p class="breadcrumb"><a href="/">Runs</a> <span aria-hidden="true">›</span> <span>Run <code>${view.id}</code></span></p>
${notice ? html`<div class="alert alert-${notice.tone}" role="status"><p>${notice.text}</p></div>` : ''}
<div class="page-head">
  <h1>${triggerLabel(view)}</h1>
  <p>${statusBadge(view.status)}</p>
</div>
<dl class="facts">
  <div class="wide"><dt>Run</dt><dd><code>${view.id}</code></dd></div>
  <div><dt>Source</dt><dd>${view.source === 'api' ? 'incident (API)' : 'Alertmanager'}</dd></div>
  <div><dt>Rung</dt><dd>${view.rung}</dd></div>
  <div><dt>Namespace</dt><dd>${view.namespace ?? '—'}</dd></div>
  <div><dt>Created</dt><dd>${formatTime(view.createdAt)}</dd></div>
  <div><dt>Finished</dt><dd>${formatTime(view.finishedAt)}</dd></div>
  <div><dt>Steps</dt><dd>${view.steps ?? '—'}</dd></div>
  <div><dt>Attempts</dt><dd>${view.attempts}</dd></div>
</dl>
${view.reason ? html`<p class="reason"><strong>Reason:</strong> ${view.reason}</p>` : ''}
<section aria-labelledby="diagnosis-title" class="card">
  <h2 id="diagnosis-title">Diagnosis</h2>
  ${
    diagnosis
      ? html`<dl class="facts">
    <div><dt>Category</dt><dd><strong>${diagnosis.category}</strong></dd></div>
    <div><dt>Culprit</dt><dd>${culpritLabel(diagnosis.culprit)}</dd></div>
    <div><dt>Confidence</dt><dd>${diagnosis.confidence}</dd></div>
  </dl>
  <p class="summary">${diagnosis.summary}</p>
  <h3>Evidence</h3>
  ${renderEvidence(diagnosis.evidence)}
  ${
    diagnosis.notFound && diagnosis.notFound.length > 0
      ? html`<h3>Not found in the cluster</h3>
  <ul>${diagnosis.notFound.map((missing) => html`<li>${missing.kind} ${missing.namespace ? `${missing.namespace}/` : ''}${missing.name}</li>`)}</ul>`
      : ''
  }`
      : html`<p class="muted">No diagnosis yet: the run is ${view.status.replaceAll('_', ' ')}.</p>`
  }
</section>
${renderActions(view, input.person)}
${renderTrail(input.trail)}
${renderAlerts(view)}
${renderCluster(view)}
${renderAuditChain(input.chain)}`,
  });
}

export function renderEvidence(evidence: readonly string[]): SafeHtml {
  if (evidence.length === 0) return html`<p class="muted">No evidence recorded.</p>`;
  return html`<ul class="evidence">${evidence.map((line) => html`<li><code>${line}</code></li>`)}</ul>`;
}

function renderActions(view: RunView, person: Person): SafeHtml {
  return html`<section aria-labelledby="actions-title" class="card">
  <h2 id="actions-title">Actions</h2>
  ${
    view.actions.length === 0
      ? html`<p class="muted">The run proposed no action.</p>`
      : html`<div class="table-wrap"><table>
    <caption>Actions the run proposed or holds</caption>
    <thead><tr><th scope="col">Action</th><th scope="col">Risk</th><th scope="col">Status</th><th scope="col">Decided</th><th scope="col">Details</th></tr></thead>
    <tbody>${view.actions.map(
      (action) => html`<tr>
      <th scope="row"><code>${actionTarget(action)}</code></th>
      <td>${action.risk}</td>
      <td>${statusBadge(action.status)}</td>
      <td>${action.decidedBy ? html`${action.decidedBy}, ${formatTime(action.decidedAt)}` : '—'}</td>
      <td><a href="/runs/${encodeURIComponent(view.id)}/actions/${encodeURIComponent(action.id)}">${action.status !== 'awaiting_approval' ? 'View action' : person.canApprove ? 'Review and decide' : 'Review the held action'}<span class="visually-hidden"> ${action.id}</span></a></td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>`;
}
