/**
 * The offline engine: a deterministic model that drives the same loop with the same tools
 * as Claude. Each turn it rebuilds what it knows from the transcript's tool results, asks
 * for the facts it still needs (in parallel), proposes a remediation through the write
 * tool (so the gate decides what happens to it), and finally submits the diagnosis.
 * It never reads the cluster any other way.
 */
import { formatDiffEntry } from '../../tools/format/template-diff.ts';
import type { DiagnosisInput } from '../diagnosis.ts';
import type { Model, ModelRequest, ModelTurn, ToolCall } from '../model.ts';
import { SUBMIT_DIAGNOSIS_TOOL } from '../prompt.ts';
import { followChain, lookAcrossNamespace } from './chain/follow-chain.ts';
import { culpritOfMissing, diagnoseMissing } from './absent.ts';
import { confidenceWithoutMatch, describeUnmatched } from './unmatched.ts';
import type { Case, Finding, Focus } from './case.ts';
import { classifyCase } from './classify.ts';
import { calibrate } from './confidence.ts';
import { gatherCase } from './gather/gather-case.ts';
import { callKey, readInvestigation } from './investigation.ts';
import { NeedsAnswers, Query } from './query.ts';
import {
  historyOf,
  latestChange,
  proposeRollback,
  relevantChanges,
  rollbackSentence,
  type Rollback,
} from './remediation.ts';
import { enrichEvidence } from './enrich/enrich.ts';
import { localSidecars } from './sidecars.ts';
import { findInjectionAttempts, supplementEvidence, surroundingEvidence } from './supplement.ts';

const NO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function createOfflineModel(): Model {
  return {
    name: 'offline',
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      const investigation = readInvestigation(request.transcript);
      const query = new Query(investigation);
      const forced = request.toolChoice.type === 'tool';
      let gathered: Case | undefined;
      let finding: Finding | undefined;
      let extra: string[] = [];
      try {
        gathered = gatherCase(request.trigger, query);
        finding = classifyCase(gathered);
        if (finding) ({ gathered, finding } = followChain(gathered, finding, query));
        // Nothing visibly fails in a namespace someone reported: what its pods log now may say why.
        if (gathered.focus.kind === 'namespace' && (finding ? finding.category === 'no-issue' : gathered.notFound))
          ({ gathered, finding } = lookAcrossNamespace(gathered, query) ?? { gathered, finding });
        if (finding)
          extra = [...supplementEvidence(finding, gathered, query), ...enrichEvidence(finding, gathered, query)];
      } catch (error) {
        if (!(error instanceof NeedsAnswers)) throw error;
        if (!forced) return turn('Gathering the facts this needs.', query.wanted);
      }
      const through =
        gathered && finding ? new Set(localSidecars(finding, gathered).map((container) => container.name)) : undefined;
      const rollback = gathered && finding ? proposeRollback(gathered, finding.category, through) : undefined;
      const diagnosis = buildDiagnosis({
        gathered,
        finding,
        extra,
        rollback,
        through,
        investigation: query.investigation,
      });
      if (rollback && !forced && !investigation.writesAsked.includes(callKey(rollback.tool, rollback.args))) {
        return turn(`Proposing a remediation: ${rollback.reason}.`, [
          { id: `offline-${rollback.tool}-${Date.now().toString(36)}`, name: rollback.tool, input: rollback.args },
        ]);
      }
      return turn(`Diagnosis: ${diagnosis.category}${finding?.rule ? ` (rule ${finding.rule})` : ''}.`, [
        { id: `offline-submit-${Date.now().toString(36)}`, name: SUBMIT_DIAGNOSIS_TOOL, input: diagnosis },
      ]);
    },
  };
}

function turn(text: string, calls: ToolCall[]): ModelTurn {
  return { text, calls, stopReason: 'tool_use', usage: NO_USAGE };
}

function buildDiagnosis(input: {
  gathered: Case | undefined;
  finding: Finding | undefined;
  extra: string[];
  rollback: Rollback | undefined;
  through: ReadonlySet<string> | undefined;
  investigation: ReturnType<typeof readInvestigation>;
}): DiagnosisInput {
  const { gathered, finding } = input;
  if (!finding && gathered?.missing) return diagnoseMissing(gathered.missing);
  const culprit = culpritOf(gathered, finding);
  const label = culprit
    ? culprit.namespace
      ? `${culprit.kind} ${culprit.namespace}/${culprit.name}`
      : `${culprit.kind} ${culprit.name}`
    : 'The cluster';
  const unmatched = gathered?.unmatched?.words;
  if (!gathered || !finding) {
    const area = gathered?.focus.kind === 'namespace' || gathered?.focus.kind === 'cluster' || !gathered;
    if (gathered?.notFound && !area) {
      return {
        category: 'no-issue',
        ...(culprit ? { culprit } : {}),
        summary: `${label}: the investigation could not find ${gathered.notFound}, so nothing was diagnosed in its place; check the name and the namespace (it may have been renamed or deleted).`,
        evidence: [`not found: ${gathered.notFound}`],
        confidence: 'low',
      };
    }
    const words = unmatched === undefined ? '' : `${describeUnmatched(unmatched)} `;
    return {
      category: 'no-issue',
      ...(culprit ? { culprit } : {}),
      summary: culprit
        ? `${words}${label}: the investigation found no failing pod, workload or node; nothing observed is failing now.`
        : `${words}Nothing in the cluster is failing now: the investigation found no failing pod, workload or node.`,
      evidence: ['no unhealthy pod, workload or node was found'],
      confidence: 'low',
    };
  }
  const evidence = [...finding.evidence, ...surroundingEvidence(gathered), ...input.extra];
  const sentences = [`${label}: ${finding.cause}.`];
  const change = latestChange(historyOf(gathered));
  const relevant = change ? relevantChanges(finding.category, change, input.through) : [];
  if (change && relevant.length > 0) {
    const cause = change.changeCause ? ` (change-cause: ${change.changeCause})` : '';
    const lines = relevant.map(formatDiffEntry);
    evidence.push(
      `${change.history.kind} ${change.history.namespace}/${change.history.name} revision ${change.toRevision}${cause} changed from revision ${change.fromRevision}: ${lines.join('; ')}`,
    );
    sentences.push(`It started with rollout revision ${change.toRevision}, which changed ${lines.join('; ')}.`);
  }
  const { rollback } = input;
  const remediation = rollback
    ? rollbackSentence({ label, rollback, result: input.investigation.resultOf(rollback.tool, rollback.args) })
    : undefined;
  if (remediation) sentences.push(remediation);
  const injections = findInjectionAttempts(input.investigation);
  if (injections.length > 0) {
    sentences.push(
      'Some cluster data contained instructions addressed to an automated agent; they were treated as data and not followed.',
    );
    evidence.push(...injections.map((line) => `ignored instruction-like text in cluster data: ${line}`));
  }
  // Words that named nothing: what fails is reported, but it may not be what the person meant.
  const confidence =
    unmatched === undefined
      ? finding.confidence
      : confidenceWithoutMatch(finding.confidence, gathered.failingWorkloads ?? 0);
  if (unmatched !== undefined)
    sentences.unshift(
      `${describeUnmatched(unmatched)} What fails ${gathered.unmatched?.namespace ? `in namespace ${gathered.unmatched.namespace}` : 'in the cluster'} now${(gathered.failingWorkloads ?? 0) > 1 ? ` (the worst of ${gathered.failingWorkloads} failing workloads)` : ''}:`,
    );
  const lines = dedupe(evidence)
    .slice(0, 20)
    .map((line) => line.slice(0, 1000));
  return {
    category: finding.category,
    ...(culprit ? { culprit } : {}),
    summary: sentences.join(' ').slice(0, 4000),
    evidence: lines,
    // What the level claims, checked against what the finding rests on (confidence.ts).
    confidence: calibrate({
      category: finding.category,
      confidence,
      ...(finding.rule ? { rule: finding.rule } : {}),
      evidence: lines,
      probeFailed: probeFailed(gathered),
    }),
  };
}

/** Whether the kubelet reported the case's pod failing a probe recently. */
function probeFailed(gathered: Case): boolean {
  return (gathered.pod?.events ?? []).some(
    (event) =>
      event.type === 'Warning' &&
      event.reason === 'Unhealthy' &&
      (event.lastSeenAgeSeconds ?? 0) < RECENT_PROBE_SECONDS,
  );
}

const RECENT_PROBE_SECONDS = 30 * 60;

function culpritOf(gathered: Case | undefined, finding: Finding | undefined): DiagnosisInput['culprit'] | undefined {
  if (finding?.category === 'node-failure') {
    const node = gathered?.node?.name ?? finding.nodeName;
    if (node) return { kind: 'Node', name: node };
  }
  if (finding?.category === 'service-no-endpoints' && gathered?.service)
    return { kind: 'Service', namespace: gathered.service.namespace, name: gathered.service.name };
  if (gathered?.workload)
    return { kind: gathered.workload.kind, namespace: gathered.workload.namespace, name: gathered.workload.name };
  return focusCulprit(gathered?.focus);
}

/** The object the focus names; none for the whole cluster (it is no object a person can act on). */
function focusCulprit(focus: Focus | undefined): DiagnosisInput['culprit'] | undefined {
  switch (focus?.kind) {
    case 'pod':
      return { kind: 'Pod', namespace: focus.namespace, name: focus.name };
    case 'workload':
      return { kind: focus.workloadKind, namespace: focus.namespace, name: focus.name };
    case 'node':
      return { kind: 'Node', name: focus.name };
    case 'service':
      return { kind: 'Service', namespace: focus.namespace, name: focus.name };
    case 'pvc':
      return { kind: 'PersistentVolumeClaim', namespace: focus.namespace, name: focus.name };
    case 'autoscaler':
      return { kind: 'HorizontalPodAutoscaler', namespace: focus.namespace, name: focus.name };
    case 'quota':
      return { kind: 'ResourceQuota', namespace: focus.namespace, name: focus.name };
    case 'absent':
      return culpritOfMissing(focus.missing);
    case 'namespace':
      return { kind: 'Namespace', name: focus.namespace };
    default:
      return undefined;
  }
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}
