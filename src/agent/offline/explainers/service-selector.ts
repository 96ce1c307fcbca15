/**
 * Service selector ↔ pod labels: a selector that matches no pod of its namespace, with
 * the label the pods carry instead (a typo in the value, or the value under another key).
 */
import type { Labels, MismatchFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { exampleNode, examplePod } from './example-objects.ts';
import { listNames, selects } from './node-fit.ts';

const ID = 'service-selector-matches-no-pod';

/** One selector entry a pod misses, and what the pod carries instead. */
interface Miss {
  readonly wanted: string;
  /** The pod's label nearest to the wanted one, as key=value; undefined when the pod has nothing close. */
  readonly carried?: string;
  readonly why: string;
  readonly cost: number;
}

/** Levenshtein distance: characters to insert, delete or change to turn one text into the other. */
export function editDistance(from: string, to: string): number {
  let previous = Array.from({ length: to.length + 1 }, (_, index) => index);
  for (let row = 1; row <= from.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= to.length; column += 1) {
      const change = previous[column - 1]! + (from[row - 1] === to[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, change));
    }
    previous = current;
  }
  return previous[to.length]!;
}

function missOf(key: string, value: string, labels: Labels): Miss {
  const wanted = `${key}=${value}`;
  const other = labels[key];
  if (other !== undefined) {
    const distance = editDistance(value, other);
    const close = distance <= Math.max(2, Math.floor(value.length / 3));
    return {
      wanted,
      carried: `${key}=${other}`,
      why: close
        ? `${distance} ${distance === 1 ? 'character' : 'characters'} apart`
        : 'a different value for the same key',
      cost: close ? distance : 50 + distance,
    };
  }
  const sameValue = Object.entries(labels).find(([, carried]) => carried === value);
  if (sameValue)
    return {
      wanted,
      carried: `${sameValue[0]}=${value}`,
      why: `the same value under key ${sameValue[0]} instead of ${key}`,
      cost: 3,
    };
  return { wanted, why: `no ${key} label at all`, cost: 100 };
}

function explain({ service, namespacePods }: MismatchFacts): Mismatch | undefined {
  if (!service || !namespacePods) return undefined;
  const selector = Object.entries(service.selector);
  if (selector.length === 0 || namespacePods.some((pod) => selects(service.selector, pod.labels))) return undefined;
  const wanted = selector.map(([key, value]) => `${key}=${value}`).join(', ');
  const where = `Service ${service.namespace}/${service.name} selects ${wanted}`;
  if (namespacePods.length === 0) {
    return {
      id: ID,
      evidence: [
        `${where}, but namespace ${service.namespace} has no pods at all, so the Service has no endpoints.`,
        'Check that the workload runs in this namespace, or move the Service to the namespace of its pods.',
      ],
      sides: { expected: wanted, actual: `no pods in namespace ${service.namespace}` },
    };
  }
  const scored = namespacePods.map((pod) => {
    const misses = selector
      .filter(([key, value]) => pod.labels[key] !== value)
      .map(([key, value]) => missOf(key, value, pod.labels));
    return { pod, misses, cost: misses.reduce((sum, miss) => sum + miss.cost, 0) };
  });
  const closest = scored.reduce((best, next) => (next.cost < best.cost ? next : best));
  const alike = scored
    .filter(
      ({ misses }) => misses.map((miss) => miss.carried).join() === closest.misses.map((miss) => miss.carried).join(),
    )
    .map(({ pod }) => pod.name);
  const carried = closest.misses.map((miss) => miss.carried).filter((label): label is string => label !== undefined);
  const evidence = [
    `${where}, but none of the ${namespacePods.length} pods in namespace ${service.namespace} carries ${selector.length > 1 ? 'all of these labels' : 'this label'}, so the Service has no endpoints.`,
    ...closest.misses.map((miss) =>
      miss.carried
        ? `The closest pods (${listNames(alike)}) carry ${miss.carried} where the selector asks ${miss.wanted}: ${miss.why}.`
        : `The closest pods (${listNames(alike)}) have ${miss.why}, which the selector entry ${miss.wanted} requires.`,
    ),
    carried.length > 0
      ? `Correct the Service selector to ${carried.join(', ')}, or the pod template's labels to ${wanted}, whichever side is wrong.`
      : `Add the labels ${wanted} to the pod template, or correct the Service selector.`,
  ];
  return {
    id: ID,
    evidence,
    sides: {
      expected: wanted,
      actual:
        carried.length > 0
          ? carried.join(', ')
          : `pods without ${closest.misses.map((miss) => miss.wanted).join(', ')}`,
    },
  };
}

const payments = examplePod('payment-api', {
  namespace: 'checkout',
  labels: { app: 'payment-api', tier: 'backend', 'pod-template-hash': '5f6b8c9d7' },
});
const checkoutPods = [
  { name: 'payment-api-5f6b8c9d7-4hx2m', labels: payments.labels },
  { name: 'payment-api-5f6b8c9d7-9kqzt', labels: payments.labels },
  {
    name: 'checkout-web-6d8f7b5c4-l2pwn',
    labels: { app: 'checkout-web', tier: 'frontend', 'pod-template-hash': '6d8f7b5c4' },
  },
  { name: 'redis-0', labels: { app: 'redis', 'statefulset.kubernetes.io/pod-name': 'redis-0' } },
];
const service = (selector: Labels) => ({
  name: 'payment-api',
  namespace: 'checkout',
  selector,
  ports: [{ name: 'http', port: 80, targetPort: 'http' }],
});
// Nodes are irrelevant to this row; one is present so that the examples look like what the engine hands in.
const nodes = [exampleNode('ip-10-0-1-23.eu-west-1.compute.internal')];

export const SERVICE_SELECTOR: Explainer = {
  id: ID,
  compares: 'Service selector ↔ pod labels',
  means:
    'The Service selects no pod, so it has no endpoints: clients get connection refused or time out. Usually a typo, or a label renamed on one side only.',
  source:
    'Service spec.selector against metadata.labels of the pods in the namespace; `kubectl get endpointslices -l kubernetes.io/service-name=<svc>` shows no addresses',
  explain,
  examples: {
    match: [
      {
        facts: { service: service({ app: 'paymnet-api' }), namespacePods: checkoutPods, nodes },
        says: [
          /selects app=paymnet-api/,
          /carry app=payment-api where the selector asks app=paymnet-api: 2 characters apart/,
          /payment-api-5f6b8c9d7-4hx2m, payment-api-5f6b8c9d7-9kqzt/,
        ],
      },
      {
        facts: {
          service: service({ 'app.kubernetes.io/name': 'payment-api', tier: 'backend' }),
          namespacePods: checkoutPods,
        },
        says: [
          /selects app\.kubernetes\.io\/name=payment-api, tier=backend/,
          /carry app=payment-api .*same value under key app instead of app\.kubernetes\.io\/name/,
          /Correct the Service selector to app=payment-api/,
        ],
      },
      {
        facts: { service: service({ app: 'payment-api', tier: 'api' }), namespacePods: checkoutPods },
        says: [/none of the 4 pods/, /carry tier=backend where the selector asks tier=api/],
      },
      {
        facts: { service: service({ app: 'payment-api' }), namespacePods: [] },
        says: [/namespace checkout has no pods at all/],
      },
    ],
    noMatch: [
      { service: service({ app: 'payment-api' }), namespacePods: checkoutPods },
      { service: service({ app: 'payment-api', tier: 'backend' }), namespacePods: checkoutPods },
      // A Service without a selector has endpoints kept by hand (an external database, say).
      { service: service({}), namespacePods: checkoutPods },
      // Without the namespace's pods there is nothing to compare against.
      { service: service({ app: 'paymnet-api' }) },
    ],
  },
};
