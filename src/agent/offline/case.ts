/**
 * The offline engine's vocabulary: what it investigates (a focus), what it gathers about
 * it (a case), and what it concludes (a finding, decided by a rule reading the case's
 * view). Types only, and the one list of workload kinds: every other module of the
 * engine reads this one, and this one reads no other (only the tools' result types).
 */
import type { DeploymentDetailsData } from '../../tools/describe-deployment.ts';
import type { PodDetailsData } from '../../tools/describe-pod.ts';
import type { ServiceDetailsData } from '../../tools/describe-service.ts';
import type { EventData } from '../../tools/format/events.ts';
import type { ContainerStateData, ContainerStatusData, PodSummaryData } from '../../tools/format/pod-status.ts';
import type { PodTemplateData } from '../../tools/format/pod-template.ts';
import type { RevisionChangeData, RevisionData } from '../../tools/format/rollout.ts';
import type { AutoscalerData } from '../../tools/list-horizontal-pod-autoscalers.ts';
import type { JobsData } from '../../tools/list-jobs.ts';
import type { NodeSummaryData } from '../../tools/list-nodes.ts';
import type { PodLogsData } from '../../tools/pod-logs.ts';
import type { Category, NotFound } from '../diagnosis.ts';
import type { LogVerdict } from './signals/types.ts';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob';

export const WORKLOAD_KINDS: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];

/** What the investigation looks at first: the object the alert or the words point at. */
export type Focus =
  | { kind: 'pod'; namespace: string; name: string }
  | { kind: 'workload'; workloadKind: WorkloadKind; namespace: string; name: string }
  | { kind: 'node'; name: string }
  | { kind: 'service'; namespace: string; name: string }
  | { kind: 'pvc'; namespace: string; name: string }
  | { kind: 'quota'; namespace: string; name: string }
  | { kind: 'autoscaler'; namespace: string; name: string }
  /** Something the report names that the cluster does not have. */
  | { kind: 'absent'; missing: Missing }
  /**
   * `hint`: the words that pointed here, to pick a pod by when nothing is visibly failing.
   * `unmatched`: a person's words that named nothing the cluster has (the namespace came from elsewhere).
   */
  | { kind: 'namespace'; namespace: string; hint?: string; unmatched?: string }
  /** `unmatched`: a person's words that named nothing the cluster has. */
  | { kind: 'cluster'; unmatched?: string };

/** The focus of one kind: `FocusOf<'service'>`. */
export type FocusOf<Kind extends Focus['kind']> = Extract<Focus, { kind: Kind }>;

/** A named object the cluster does not have. */
export interface Missing extends NotFound {
  /** What the cluster has of that kind there, closest names first (at most MAX_EXISTING). */
  existing?: string[];
  /** The words for `existing`: "nodes", "namespaces", "workloads in finance". */
  existingLabel?: string;
  /** A tool's own not-found message, quoted as evidence. */
  toolMessage?: string;
}

/** A workload's rollout history, whatever keeps it (a Deployment's ReplicaSets, a StatefulSet's or DaemonSet's ControllerRevisions). */
export interface WorkloadHistory {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  namespace: string;
  name: string;
  /** Replicas the workload wants (a DaemonSet: the nodes it should run on). */
  desired: number;
  currentRevision?: number;
  revisions: Array<Omit<RevisionData, 'template'>>;
  changes: RevisionChangeData[];
}

/** Everything gathered about the incident, for the rules to judge. */
/** A state a person chose, read from the workload's spec and notes (intent/deliberate-state.ts). */
export interface Intent {
  row: string;
  state: string;
  note?: string;
  /** What it explains: `Service x has no endpoints because of it`. */
  detail?: string;
}

export interface Case {
  focus: Focus;
  /** The workload in focus (or behind the Service in focus) is where it is on purpose. */
  intent?: Intent;
  /** The cluster's clock when the facts were read. */
  clusterNow: Date;
  /** The workload in question, when known: what a diagnosis names as culprit. */
  workload?: { kind: WorkloadKind | 'Pod' | 'ReplicaSet'; namespace: string; name: string };
  pod?: PodDetailsData;
  /** The container the logs are of, and its log. */
  logs?: PodLogsData;
  deployment?: DeploymentDetailsData;
  /** Pods of the workload, when listed (their summaries). */
  workloadPods?: PodSummaryData[];
  /** Events of the workload (its controller's and ReplicaSets'), when read. */
  workloadEvents?: {
    type: string;
    reason: string;
    message: string;
    count: number;
    lastSeenAgeSeconds?: number;
    object: { kind: string; name: string };
  }[];
  node?: NodeSummaryData;
  service?: ServiceDetailsData;
  job?: JobsData;
  /** What the sentence or alert pointed at could not be found (or, for an area, that nothing in it fails). */
  notFound?: string;
  /** The object the sentence or alert named, when the cluster does not have it. */
  missing?: Missing;
  /** How many workloads (or bare pods) fail in the area searched, when a namespace or the cluster was searched. */
  failingWorkloads?: number;
  /** A person's words that named nothing the cluster has, and the namespace searched instead (none: the cluster). */
  unmatched?: { words: string; namespace?: string };
  /** What the container's current run has logged (when its log was read), apart from any earlier run's. */
  currentLogLines?: string[];
  /** The pod the alert named, gone since (replaced by its workload). */
  replacedPod?: string;
  /** A DaemonSet's pod template and every node: where it should run and where it does. */
  daemonSet?: { template: PodTemplateData; nodes: NodeSummaryData[] };
  /** A StatefulSet's or DaemonSet's rollout history (a Deployment's comes with `deployment`). */
  history?: WorkloadHistory;
  /** The HorizontalPodAutoscaler an HPA alert named, whose target is the workload. */
  autoscaler?: AutoscalerData;
  /** A failed Job of a CronJob that a later run of the same CronJob completed after: the failure is history. */
  superseded?: { cronJob: string; failed: string; by: string; lastSucceeded?: string };
}

/** A case while it is gathered: the cluster's clock is added once, at the end. */
export type Gathered = Omit<Case, 'clusterNow'>;

/** What a container's log says: the verdict the whole log supports and the lines that carry it. */
export interface LogReading {
  verdict: LogVerdict | undefined;
  /** The lines that carry the verdict, most telling first, at most `limit`. */
  evidence: string[];
  errorLines: string[];
}

/**
 * The facts every rule reads, worked out once per case: the pod, the container in
 * trouble, its waiting state and last termination, what its log says, and the probe
 * failure the kubelet reported. Rules read this view; they never call a tool.
 */
export interface CaseView {
  gathered: Case;
  pod?: PodDetailsData;
  /** The container in trouble: a failing init container first, then a waiting, crashed or unready one. */
  container?: ContainerStatusData;
  waiting?: ContainerStateData;
  termination?: ContainerStateData;
  /** What the container's log says, when it was read. */
  reading?: LogReading;
  /** The kubelet's recent probe failure on this pod, if any. */
  probe?: EventData;
}

export interface Finding {
  category: Category;
  /** Evidence lines, strongest first. */
  evidence: string[];
  /** One sentence: what is wrong. */
  cause: string;
  confidence: 'high' | 'medium' | 'low';
  /** For node-failure: the node to name as culprit, when it is not the case's node. */
  nodeName?: string;
  /** The rule that decided, for the trail. */
  rule?: string;
}

/**
 * A diagnosis rule: one row of the engine's decision table (rules/table.ts). Rules are
 * tried by declared priority, highest first; the first that applies and explains the case
 * decides it. Each row says why it outranks the rows below it, and names public scenarios
 * where it must decide and where it must not (a test runs them).
 */
export interface Rule {
  id: string;
  /** The category it concludes; `from-the-facts` when the facts name it (a log's verdict, the missing object's kind). */
  category: Category | 'from-the-facts';
  priority: number;
  /** Why this rule is tried before the ones below it. */
  outranks: string;
  applies(view: CaseView): boolean;
  /** The finding, or undefined when the facts do not bear it out after all (the next rule is tried). */
  explain(view: CaseView): Finding | undefined;
  /**
   * Public scenarios (under mock-cluster/scenarios) diagnosed from their alert, or from
   * their incident text with the suffix `#incident`: this rule decides each of `decides`,
   * and none of `doesNotDecide`.
   */
  examples: { decides: string[]; doesNotDecide: string[] };
}

/** Where following the chain ends: the case of the culprit and its finding (the client's, or a backend's). */
export interface Conclusion {
  gathered: Case;
  finding: Finding;
}
