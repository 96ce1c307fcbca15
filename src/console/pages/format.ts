/**
 * Small pieces every page shows the same way: times, status badges (text first, colour
 * only as a second cue), culprits, clusters, sizes and JSON inputs.
 */
import type { RunView } from '../../runs/run-view.ts';
import { html, type SafeHtml } from '../html.ts';

/** `2026-12-02 07:22:51 UTC` in a <time> element carrying the exact instant. */
export function formatTime(iso: string | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  const shown = `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${shown}</time>`;
}

/** A status as a badge: the word is the status; the colour only repeats it. */
export function statusBadge(status: string): SafeHtml {
  const tone = /^[a-z_]+$/.test(status) ? status.replaceAll('_', '-') : 'unknown';
  return html`<span class="badge badge-${tone}">${status.replaceAll('_', ' ')}</span>`;
}

export function culpritLabel(culprit: { kind: string; namespace?: string; name: string } | undefined): string {
  if (!culprit) return '—';
  return culprit.namespace ? `${culprit.kind} ${culprit.namespace}/${culprit.name}` : `${culprit.kind} ${culprit.name}`;
}

/** The cluster as a person names it: the kubeconfig context, else the mock's scenario, else the API server. */
export function clusterLabel(cluster: RunView['cluster']): string {
  if (!cluster) return '—';
  if (cluster.context) return cluster.context;
  if (cluster.source === 'mock' && cluster.scenario) return `mock: ${cluster.scenario}`;
  return cluster.server;
}

/** What started the run, in a few words. */
export function triggerLabel(view: RunView): string {
  if (view.trigger.kind === 'incident') return view.trigger.text;
  return view.trigger.alert.labels.alertname ?? 'alert';
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Compact JSON for a table cell, cut at `limit` characters. */
export function jsonPreview(value: unknown, limit = 240): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** `rollout_undo staging/checkout-api`: a write action's tool and the object it targets. */
export function actionTarget(action: { tool: string; args: Record<string, unknown> }): string {
  const { namespace, name } = action.args;
  const target = typeof name === 'string' ? (typeof namespace === 'string' ? `${namespace}/${name}` : name) : '';
  return target ? `${action.tool} ${target}` : action.tool;
}
