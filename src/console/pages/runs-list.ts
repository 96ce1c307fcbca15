/**
 * The runs list at `/`: newest first, a GET filter form (status, namespace, category,
 * cluster) that works without JavaScript, cursor paging, and a table body that
 * console.js refreshes every few seconds (`?fragment=rows`) with a polite announcement.
 */
import { createHash } from 'node:crypto';
import { CATEGORIES } from '../../agent/diagnosis.ts';
import type { RunView } from '../../runs/run-view.ts';
import { RUN_STATUSES, type RunStatus } from '../../store/ports.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Person } from '../session.ts';
import { clusterLabel, culpritLabel, formatTime, statusBadge, triggerLabel } from './format.ts';
import { renderLayout } from './layout.ts';

export interface RunFilters {
  status?: RunStatus;
  namespace?: string;
  category?: string;
  cluster?: string;
}

/** The filters of a query string; a value that is not one the store knows is left out. */
export function parseRunFilters(query: Record<string, unknown>): { filters: RunFilters; cursor?: number } {
  const text = (name: string, max: number): string | undefined => {
    const value = query[name];
    return typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined;
  };
  const status = text('status', 32);
  const category = text('category', 64);
  const namespace = text('namespace', 253);
  const cluster = text('cluster', 2048);
  const cursor = Number(text('cursor', 20));
  return {
    filters: {
      ...(status && (RUN_STATUSES as readonly string[]).includes(status) ? { status: status as RunStatus } : {}),
      ...(namespace ? { namespace } : {}),
      ...(category && (CATEGORIES as readonly string[]).includes(category) ? { category } : {}),
      ...(cluster ? { cluster } : {}),
    },
    ...(Number.isSafeInteger(cursor) && cursor > 0 ? { cursor } : {}),
  };
}

/** `/?status=…&…` for these filters (and a cursor). */
export function runsUrl(filters: RunFilters, cursor?: number): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (typeof value === 'string') parameters.set(name, value);
  if (cursor !== undefined) parameters.set('cursor', String(cursor));
  const query = parameters.toString();
  return query ? `/?${query}` : '/';
}

/** The table body's rows: the page's, and what `?fragment=rows` answers. */
export function renderRunRows(runs: readonly RunView[]): SafeHtml {
  if (runs.length === 0) return html`<tr><td colspan="8" class="empty">No runs match these filters.</td></tr>`;
  return html`${runs.map((run) => html`${renderRow(run)}\n`)}`;
}

/** A short fingerprint of the rows: the live update swaps the body only when it changed. */
export function rowsSignature(rows: SafeHtml): string {
  return createHash('sha256').update(rows.value).digest('hex').slice(0, 16);
}

function renderRow(run: RunView): SafeHtml {
  return html`<tr>
  <td>${formatTime(run.createdAt)}</td>
  <td>${statusBadge(run.status)}</td>
  <td class="cell-text">${triggerLabel(run)}</td>
  <td class="nowrap">${run.diagnosis?.category ?? '—'}</td>
  <td>${culpritLabel(run.diagnosis?.culprit)}</td>
  <td>${run.namespace ?? '—'}</td>
  <td>${clusterLabel(run.cluster)}</td>
  <td><a class="run-link" href="/runs/${encodeURIComponent(run.id)}">Open<span class="visually-hidden"> run ${run.id}</span></a></td>
</tr>`;
}

export function renderRunsPage(input: {
  person: Person;
  runs: readonly RunView[];
  filters: RunFilters;
  cursor?: number;
  nextCursor?: number;
}): string {
  const { filters } = input;
  const rows = renderRunRows(input.runs);
  const here = runsUrl(filters, input.cursor);
  return renderLayout({
    title: 'Runs',
    person: input.person,
    scripts: ['/console/assets/console.js'],
    main: html`<div class="page-head">
  <h1>Runs</h1>
  <p class="page-actions"><a href="${here}" class="button button-quiet">Refresh</a></p>
</div>
<form method="get" action="/" class="filters" aria-labelledby="filters-title">
  <h2 id="filters-title" class="visually-hidden">Filter runs</h2>
  <div class="field">
    <label for="filter-status">Status</label>
    <select id="filter-status" name="status">
      <option value="">Any status</option>
      ${RUN_STATUSES.map((status) => html`<option value="${status}"${filters.status === status ? html` selected` : ''}>${status.replaceAll('_', ' ')}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="filter-namespace">Namespace</label>
    <input id="filter-namespace" name="namespace" type="text" value="${filters.namespace ?? ''}" spellcheck="false" autocomplete="off">
  </div>
  <div class="field">
    <label for="filter-category">Category</label>
    <select id="filter-category" name="category">
      <option value="">Any category</option>
      ${CATEGORIES.map((category) => html`<option value="${category}"${filters.category === category ? html` selected` : ''}>${category}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="filter-cluster">Cluster</label>
    <input id="filter-cluster" name="cluster" type="text" value="${filters.cluster ?? ''}" spellcheck="false" autocomplete="off" placeholder="context, API server or scenario" aria-describedby="filter-cluster-hint">
    <span id="filter-cluster-hint" class="visually-hidden">A kubeconfig context, an API server URL, or a mock cluster scenario</span>
  </div>
  <div class="filter-buttons">
    <button type="submit" class="button button-primary">Apply filters</button>
    <a href="/" class="button button-quiet">Clear</a>
  </div>
</form>
<p id="live-status" class="live-status" aria-live="polite"></p>
<div class="table-wrap">
<table class="runs">
  <caption>${input.cursor !== undefined ? 'Older runs' : 'Runs, newest first'}${describeFilters(filters)}</caption>
  <thead><tr>
    <th scope="col">Created</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Category</th>
    <th scope="col">Culprit</th><th scope="col">Namespace</th><th scope="col">Cluster</th><th scope="col">Run</th>
  </tr></thead>
  <tbody id="run-rows" data-live-rows data-rows-signature="${rowsSignature(rows)}">
${rows}
  </tbody>
</table>
</div>
<nav class="pager" aria-label="Pages of runs">
  ${input.cursor !== undefined ? html`<a href="${runsUrl(filters)}">Newest runs</a>` : ''}
  ${input.nextCursor !== undefined ? html`<a href="${runsUrl(filters, input.nextCursor)}" rel="next">Older runs</a>` : ''}
</nav>`,
  });
}

function describeFilters(filters: RunFilters): string {
  const parts = Object.entries(filters).map(([name, value]) => `${name} ${String(value)}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
