/**
 * The engine's decision table. What Kubernetes states itself (a node's conditions, a
 * Service's selector, the scheduler's message, waiting and termination reasons) outranks
 * what a process says about itself in its log, which outranks weaker signals (a workload's
 * events, an unexplained state). Priorities are spaced so a new rule fits between two.
 * Each row's facts and finding are in a file of its own, named for what it decides
 * (rules/oom.ts, rules/service-selector.ts ...), whose comment names the row's id.
 */
import type { Rule } from '../case.ts';
import { isMisscheduled } from '../placement.ts';
import { misscheduledFinding } from './daemonset-misscheduled.ts';
import { deliberateFinding, isDeliberate } from './deliberate-state.ts';
import { failingProcessFinding, isFailingProcess } from './failing-process.ts';
import { imagePullFinding, isImagePullWait } from './image-pull.ts';
import { initStuckFinding } from './init-stuck.ts';
import { missingReferenceFinding, missingReferenceOf } from './missing-reference.ts';
import { nodeFinding, podSuffersFromNode } from './node-unhealthy.ts';
import { oomFinding } from './oom.ts';
import { completedFinding } from './pod-completed.ts';
import { evictionFinding } from './pod-evicted.ts';
import { isRecovered, recoveredFinding } from './pod-recovered.ts';
import { schedulingFinding, schedulingOf } from './pod-unschedulable.ts';
import { answersNotFound, exitedOnItsOwn, probeFinding } from './probe-failure.ts';
import { quotaFinding, quotaRefusalOf } from './quota-refusal.ts';
import { saysLastThatDependencyFails } from './ready-but-failing-dependency.ts';
import { hasUnmatchedTargetPort, serviceFinding } from './service-selector.ts';
import { healthyWorkloadFinding } from './workload-healthy.ts';
import { supersededFinding } from './job-superseded.ts';

export const RULES: readonly Rule[] = [
  {
    id: 'node-unhealthy',
    category: 'node-failure',
    priority: 1000,
    outranks: 'a NotReady or pressured node explains every symptom of the pods on it; their own errors are its effects',
    applies: ({ gathered, pod }) =>
      gathered.node !== undefined && !gathered.node.healthy && (!pod || podSuffersFromNode(gathered)),
    explain: ({ gathered }) => nodeFinding(gathered),
    examples: {
      decides: [
        'worker-node-notready',
        'orders-terminating-node-lost',
        'node-memory-pressure-evictions',
        'eks-node-lost-orders-capacity',
        'gke-pid-pressure-catalog-threads',
      ],
      doesNotDecide: ['payments-node-disk-pressure', 'gateway-go-panic'],
    },
  },
  {
    id: 'deliberate-state',
    category: 'no-issue',
    priority: 960,
    outranks:
      'a workload at 0 replicas with a note that says why, a suspended CronJob or a paused rollout is what a person chose: the Service without endpoints or the Job that never runs is its consequence, not a fault',
    applies: isDeliberate,
    explain: deliberateFinding,
    examples: {
      decides: [
        'fx-rates-exporter-decommissioned-no-endpoints',
        'gdpr-erasure-cronjob-suspended-legal-hold#incident',
        'nats-canary-partition-hold',
      ],
      doesNotDecide: ['payments-gateway-selector', 'checkout-replicas-recovered', 'gpu-pool-scaled-to-zero'],
    },
  },
  {
    id: 'job-superseded',
    category: 'no-issue',
    priority: 955,
    outranks:
      "a CronJob whose newest run completed after the failed one works again: the failed Job's pods and logs are history, kept only because the Job object is",
    applies: ({ gathered }) => gathered.superseded !== undefined,
    explain: supersededFinding,
    examples: {
      decides: ['finance-report-failed-job-superseded', 'finance-report-failed-job-superseded#incident'],
      doesNotDecide: ['nightly-report-cronjob', 'warehouse-export-backoff-limit', 'sync-job-dns'],
    },
  },
  {
    id: 'service-selects-no-pod',
    category: 'from-the-facts',
    priority: 950,
    outranks:
      'a Service whose selector matches no pod, or whose targetPort names a port its pods do not declare, is broken whatever the pods do; with no pod to look at, the Service is all there is',
    applies: ({ gathered, pod }) =>
      gathered.service !== undefined && (!pod || gathered.service.pods.total === 0 || hasUnmatchedTargetPort(gathered)),
    explain: ({ gathered }) => serviceFinding(gathered),
    examples: {
      decides: [
        'payments-gateway-selector',
        'webhook-svc-port-name',
        'api-service-version-label',
        'fulfillment-grpc-inventory-selector',
      ],
      doesNotDecide: ['search-api-liveness-port', 'cart-redis-dns'],
    },
  },
  {
    id: 'pod-evicted',
    category: 'node-failure',
    priority: 850,
    outranks:
      "an evicted pod's containers were stopped by the kubelet: the node's shortage is the cause, not their state",
    applies: ({ pod }) => pod?.reason === 'Evicted',
    explain: ({ gathered }) => evictionFinding(gathered),
    examples: {
      decides: ['payments-node-disk-pressure'],
      doesNotDecide: ['node-memory-pressure-evictions', 'orders-worker-oom'],
    },
  },
  {
    id: 'pod-completed',
    category: 'no-issue',
    priority: 800,
    outranks: 'a pod that ran to completion is done: past waits and restarts no longer matter',
    applies: ({ pod }) => pod?.phase === 'Succeeded',
    explain: completedFinding,
    examples: {
      decides: ['batch-job-completed-false-alarm'],
      doesNotDecide: ['nightly-report-cronjob', 'sync-job-dns'],
    },
  },
  {
    id: 'pod-unschedulable',
    category: 'from-the-facts',
    priority: 750,
    outranks: "a pod no node takes has no container to judge: the scheduler's message is the whole story",
    applies: (view) => schedulingOf(view) !== undefined,
    explain: schedulingFinding,
    examples: {
      decides: ['api-insufficient-cpu', 'cache-anti-affinity', 'postgres-pvc-storageclass', 'model-server-gpu'],
      doesNotDecide: ['checkout-secret-rotation', 'report-api-quota'],
    },
  },
  {
    id: 'ready-but-failing-dependency',
    category: 'from-the-facts',
    priority: 720,
    outranks:
      'a pod can be running and ready while every request it serves fails on a dependency: its log saying so, last, outranks looking healthy',
    applies: ({ container, pod, gathered }) =>
      pod?.phase === 'Running' &&
      container?.state.state === 'running' &&
      !container.init &&
      saysLastThatDependencyFails(gathered.currentLogLines ?? []),
    explain: failingProcessFinding,
    examples: {
      decides: ['coredns-oomkilled-memory-limit', 'orders-service-postgres-init-chown'],
      doesNotDecide: ['catalog-recovered', 'grafana-healthy-false-alarm'],
    },
  },
  {
    id: 'pod-recovered',
    category: 'no-issue',
    priority: 700,
    outranks:
      'a pod running and ready, its last crash long ago and no recent warnings, has recovered: its old crash is history',
    applies: ({ gathered }) => isRecovered(gathered),
    explain: ({ gathered }) => recoveredFinding(gathered),
    examples: { decides: ['catalog-recovered'], doesNotDecide: ['fluent-bit-oom', 'checkout-replicas-recovered'] },
  },
  {
    id: 'image-pull',
    category: 'image-pull',
    priority: 650,
    outranks: 'a container whose image cannot be pulled never ran: nothing else about it can be wrong yet',
    applies: isImagePullWait,
    explain: imagePullFinding,
    examples: {
      decides: ['frontend-bad-image-tag', 'billing-private-registry', 'jobs-invalid-image-name'],
      doesNotDecide: ['gateway-go-panic', 'mailer-missing-secret'],
    },
  },
  {
    id: 'missing-reference',
    category: 'from-the-facts',
    priority: 600,
    outranks:
      'a container the kubelet cannot create for a missing Secret or ConfigMap never ran: its log, if any, is from an older start',
    applies: (view) => missingReferenceOf(view) !== undefined,
    explain: missingReferenceFinding,
    examples: {
      decides: [
        'mailer-missing-secret',
        'ingest-missing-configmap',
        'billing-secret-key-missing',
        'payments-cert-volume-missing-secret',
      ],
      doesNotDecide: ['checkout-secret-rotation', 'payments-api-missing-env'],
    },
  },
  {
    id: 'oom-killed',
    category: 'oom-killed',
    priority: 550,
    outranks: 'the kernel killing the container for memory is a fact; whatever the log printed before is its symptom',
    applies: ({ termination }) => termination?.reason === 'OOMKilled',
    explain: oomFinding,
    examples: {
      decides: ['orders-worker-oom', 'kafka-jvm-oom', 'fluent-bit-oom'],
      doesNotDecide: ['catalog-recovered', 'gateway-go-panic'],
    },
  },
  {
    id: 'probe-kills-container',
    category: 'probe-failure',
    priority: 500,
    outranks:
      'the kubelet killing a container for a failed probe explains its restarts, unless its log says a dependency refused or cannot be reached (then the probe fails because of that; not when the probe gets 404: the app answers, the path is wrong), or the process exited by itself with an error its log names (the probe only saw it down)',
    applies: (view) =>
      view.probe !== undefined &&
      view.container?.init !== true &&
      (answersNotFound(view.probe.message) ||
        (view.reading?.verdict !== 'bad-credentials' && view.reading?.verdict !== 'dependency-unreachable')) &&
      !(exitedOnItsOwn(view) && view.reading?.verdict),
    explain: probeFinding,
    examples: {
      decides: [
        'search-api-liveness-port',
        'web-readiness-path',
        'search-liveness-timeout',
        'keycloak-startup-probe',
        'stock-service-liveness-before-startup',
      ],
      doesNotDecide: ['checkout-secret-rotation', 'cart-redis-dns', 'tracking-mongo-datadir-full'],
    },
  },
  {
    id: 'init-container-stuck',
    category: 'init-failure',
    priority: 450,
    outranks: 'an init container still running keeps every app container waiting: they have nothing to say yet',
    applies: ({ container }) => container?.init === true && container.state.state === 'running',
    explain: initStuckFinding,
    examples: { decides: ['orders-init-wait-dns'], doesNotDecide: ['invoice-migration-init', 'uploads-init-chown'] },
  },
  {
    id: 'failing-process',
    category: 'from-the-facts',
    priority: 400,
    outranks:
      'a process that keeps exiting (or stays unready naming a dependency) is judged by what its log says last: refused credentials and unreachable dependencies before its own crash',
    applies: isFailingProcess,
    explain: failingProcessFinding,
    examples: {
      decides: [
        'checkout-secret-rotation',
        'cart-redis-dns',
        'gateway-go-panic',
        'invoice-migration-init',
        'tracking-mongo-datadir-full',
        'coredns-corefile-forward-hostname',
      ],
      doesNotDecide: ['orders-worker-oom', 'frontend-bad-image-tag'],
    },
  },
  {
    id: 'quota-refuses-pods',
    category: 'quota-exceeded',
    priority: 200,
    outranks:
      "pods that were never created leave only their controller's FailedCreate events: a quota or LimitRange refusal there is the cause",
    applies: ({ gathered }) => quotaRefusalOf(gathered) !== undefined,
    explain: ({ gathered }) => quotaFinding(gathered),
    examples: {
      decides: ['report-api-quota', 'limitrange-max-memory', 'reports-quota-pods-cronjob'],
      doesNotDecide: ['api-insufficient-cpu'],
    },
  },
  {
    id: 'daemonset-misscheduled',
    category: 'unschedulable-placement',
    priority: 195,
    outranks:
      'a DaemonSet whose pods all run ready can still be kept off nodes by a taint it does not tolerate: its pods already there show it, which a healthy count hides',
    applies: ({ gathered, pod }) => !pod && isMisscheduled(gathered),
    explain: ({ gathered }) => misscheduledFinding(gathered),
    examples: {
      decides: ['fluent-bit-ingest-pool-taint'],
      doesNotDecide: ['indexer-daemonset-crash', 'alloy-daemonset-unknown-flag'],
    },
  },
  {
    id: 'workload-healthy',
    category: 'no-issue',
    priority: 190,
    outranks: 'with no pod in trouble and every pod ready, the workload is healthy now: only a weaker guess is left',
    applies: ({ gathered, pod }) => !pod && gathered.workload !== undefined,
    explain: ({ gathered }) => healthyWorkloadFinding(gathered),
    examples: {
      decides: ['checkout-replicas-recovered', 'grafana-healthy-false-alarm'],
      doesNotDecide: ['catalog-recovered'],
    },
  },
];
