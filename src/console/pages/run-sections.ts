/** The lower sections of a run's page: the trail of tool calls, the alerts, the cluster, the audit chain. */
import type { RunView } from '../../runs/run-view.ts';
import { html, type SafeHtml } from '../html.ts';
import type { TrailEntry } from '../trail.ts';
import { formatBytes, formatTime, jsonPreview, statusBadge } from './format.ts';

/** The audit events as the page lists them, and what verifying the chain found. */
export interface ChainView {
  events: { seq: number; type: string; time: string; hash: string }[];
  problems: string[];
}

export function renderTrail(trail: readonly TrailEntry[]): SafeHtml {
  return html`<section aria-labelledby="trail-title" class="card">
  <h2 id="trail-title">Trail</h2>
  ${
    trail.length === 0
      ? html`<p class="muted">No tool calls yet.</p>`
      : html`<div class="table-wrap"><table class="trail">
    <caption>Each tool call the run made, in order</caption>
    <thead><tr><th scope="col">#</th><th scope="col">Tool</th><th scope="col">Risk</th><th scope="col">Input</th><th scope="col">Result</th></tr></thead>
    <tbody>${trail.map(
      (entry, index) => html`<tr>
      <td>${index + 1}</td>
      <th scope="row"><code>${entry.tool}</code></th>
      <td>${entry.repeatOf ? 'repeat' : (entry.risk ?? '—')}${entry.decision && entry.decision !== 'execute' ? html`<br><span class="muted small">gate: ${entry.decision}</span>` : ''}</td>
      <td class="cell-code"><code>${jsonPreview(entry.input)}</code></td>
      <td>${renderResult(entry)}</td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>`;
}

function renderResult(entry: TrailEntry): SafeHtml {
  if (entry.repeatOf) return html`<span class="muted">answered earlier</span>`;
  if (!entry.result) return html`<span class="muted">no result yet</span>`;
  const { bytes, truncated, error } = entry.result;
  return html`${formatBytes(bytes)}${truncated ? ' (truncated)' : ''}${error ? html`<br><span class="error-text">error: ${error}</span>` : ''}`;
}

export function renderAlerts(view: RunView): SafeHtml {
  const alerts = view.alerts ?? [];
  return html`<section aria-labelledby="alerts-title" class="card">
  <h2 id="alerts-title">Alerts</h2>
  ${
    alerts.length === 0
      ? html`<p class="muted">No alerts: the run was started by a person's description.</p>`
      : html`<div class="table-wrap"><table>
    <caption>The alerts of this incident, oldest first${view.alertCount !== undefined && view.alertCount > alerts.length ? ` (${alerts.length} of ${view.alertCount})` : ''}</caption>
    <thead><tr><th scope="col">Alert</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Labels</th></tr></thead>
    <tbody>${alerts.map(
      (alert) => html`<tr>
      <th scope="row">${alert.alertname ?? '—'}</th>
      <td>${statusBadge(alert.status)}</td>
      <td>${formatTime(alert.startsAt)}</td>
      <td><ul class="labels">${Object.entries(alert.labels).map(([name, value]) => html`<li><code>${name}=${value}</code></li>`)}</ul></td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>`;
}

export function renderCluster(view: RunView): SafeHtml {
  const cluster = view.cluster;
  return html`<section aria-labelledby="cluster-title" class="card">
  <h2 id="cluster-title">Cluster</h2>
  ${
    cluster
      ? html`<dl class="facts">
    <div><dt>Source</dt><dd>${cluster.source}</dd></div>
    ${cluster.context ? html`<div><dt>Context</dt><dd>${cluster.context}</dd></div>` : ''}
    ${cluster.scenario ? html`<div><dt>Scenario</dt><dd>${cluster.scenario}</dd></div>` : ''}
    <div class="wide"><dt>API server</dt><dd><code>${cluster.server}</code></dd></div>
  </dl>`
      : html`<p class="muted">Not recorded: the run has not started yet.</p>`
  }
</section>`;
}

export function renderAuditChain(chain: ChainView): SafeHtml {
  const verified = chain.problems.length === 0;
  return html`<section aria-labelledby="audit-title" class="card">
  <h2 id="audit-title">Audit chain</h2>
  <p class="chain-status ${verified ? 'chain-ok' : 'chain-bad'}">${
    verified
      ? html`<strong>Verified:</strong> the hash chain of ${chain.events.length} events is intact.`
      : html`<strong>Does not verify:</strong> ${chain.problems.length} problem(s).`
  }</p>
  ${verified ? '' : html`<ul class="problems">${chain.problems.map((problem) => html`<li>${problem}</li>`)}</ul>`}
  <details>
    <summary>Show the ${chain.events.length} audit events</summary>
    <div class="table-wrap"><table class="audit">
      <caption>Audit events, in order</caption>
      <thead><tr><th scope="col">Seq</th><th scope="col">Type</th><th scope="col">Time</th><th scope="col">Hash</th></tr></thead>
      <tbody>${chain.events.map(
        (event) =>
          html`<tr><td>${event.seq}</td><th scope="row">${event.type}</th><td>${formatTime(event.time)}</td><td><code title="${event.hash}">${event.hash.slice(0, 12)}</code></td></tr>`,
      )}</tbody>
    </table></div>
  </details>
</section>`;
}
