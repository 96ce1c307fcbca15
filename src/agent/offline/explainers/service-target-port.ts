/**
 * Service targetPort ↔ container ports: the Service sends traffic to a port the pod it
 * selects does not declare (by number) or does not have (by name).
 */
import type { ContainerFacts, MismatchFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { exampleContainer, examplePod } from './example-objects.ts';
import { describePorts, logContainerOf } from './log-container.ts';
import { selects } from './node-fit.ts';

const ID = 'service-target-port-not-served';

function explain(facts: MismatchFacts): Mismatch | undefined {
  const { service, pod } = facts;
  if (!service || !pod) return undefined;
  // A pod the Service does not select is the selector row's business, not a port mismatch.
  if (Object.keys(service.selector).length === 0 || !selects(service.selector, pod.labels)) return undefined;
  const declared = pod.containers.flatMap((container: ContainerFacts) => container.ports);
  const listening = logContainerOf(facts) ? (facts.listeningPorts ?? []) : [];
  const unserved = service.ports.filter(({ targetPort }) => {
    const target = typeof targetPort === 'string' && /^\d+$/.test(targetPort) ? Number(targetPort) : targetPort;
    if (typeof target === 'string') return !declared.some((port) => port.name === target);
    // Kubernetes does not require a numeric targetPort to be declared: with nothing declared and nothing heard, there is nothing to compare.
    if (declared.length === 0 && listening.length === 0) return false;
    return !declared.some((port) => port.containerPort === target) && !listening.includes(target);
  });
  if (unserved.length === 0) return undefined;
  const podSide = [
    declared.length > 0 ? `declares ${describePorts(declared)}` : 'declares no container ports',
    listening.length > 0 ? `its log says it listens on ${listening.join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join(' and ');
  const evidence = unserved.map(({ port, targetPort }) =>
    typeof targetPort === 'string' && !/^\d+$/.test(targetPort)
      ? `Service ${service.namespace}/${service.name} port ${port} targets the named port ${targetPort}, but no container of pod ${pod.name} has a port named ${targetPort}: it ${podSide}.`
      : `Service ${service.namespace}/${service.name} port ${port} targets port ${targetPort}, but pod ${pod.name} ${podSide}.`,
  );
  const served = declared[0] ? (declared[0].name ?? String(declared[0].containerPort)) : listening[0];
  evidence.push(
    served !== undefined
      ? `Set the Service's targetPort to ${served}, or make the container serve ${unserved.map((port) => port.targetPort).join(', ')}; until then requests to the Service are refused.`
      : `Make the container declare and serve ${unserved.map((port) => port.targetPort).join(', ')}.`,
  );
  return {
    id: ID,
    evidence,
    sides: {
      expected: `targetPort ${unserved.map((port) => port.targetPort).join(', ')}`,
      actual: [
        declared.length > 0 ? `container ports ${describePorts(declared)}` : 'no container ports',
        listening.length > 0 ? `listening on ${listening.join(', ')}` : undefined,
      ]
        .filter(Boolean)
        .join('; '),
    },
  };
}

const orders = examplePod('orders', {
  containers: [
    exampleContainer('orders', {
      ports: [
        { name: 'http', containerPort: 3000 },
        { name: 'metrics', containerPort: 9464 },
      ],
    }),
  ],
});
const ordersService = (targetPort: number | string) => ({
  name: 'orders',
  namespace: 'shop',
  selector: { app: 'orders' },
  ports: [{ name: 'http', port: 80, targetPort }],
});

export const SERVICE_TARGET_PORT: Explainer = {
  id: ID,
  compares: 'Service targetPort ↔ container ports',
  means:
    'The Service forwards to a port the pod does not serve: with a named targetPort the pod gets no endpoint; with a number, connections are refused.',
  source:
    'Service spec.ports[].targetPort against spec.containers[].ports of the selected pod, and the port its log says it listens on',
  explain,
  examples: {
    match: [
      {
        facts: { service: ordersService(8080), pod: orders },
        says: [
          /port 80 targets port 8080, but pod orders-7c9d5b6f4-2xkqp declares 3000 \(http\), 9464 \(metrics\)/,
          /targetPort to http/,
        ],
      },
      {
        facts: { service: ordersService('web'), pod: orders },
        says: [/named port web, but no container .* has a port named web/, /declares 3000 \(http\)/],
      },
      {
        facts: {
          service: ordersService(8080),
          pod: examplePod('orders'),
          listeningPorts: [3000],
          logLines: ['{"level":30,"msg":"Server listening at http://0.0.0.0:3000"}'],
        },
        says: [/targets port 8080, but pod .* declares no container ports and its log says it listens on 3000/],
      },
    ],
    noMatch: [
      { service: ordersService('http'), pod: orders },
      { service: ordersService(3000), pod: orders },
      // Undeclared but heard listening: Kubernetes does not require the declaration.
      { service: ordersService(8080), pod: examplePod('orders'), listeningPorts: [8080] },
      // Nothing declared and nothing heard: no evidence either way.
      { service: ordersService(8080), pod: examplePod('orders') },
      // The Service does not select this pod at all; that is the selector row's finding.
      { service: { ...ordersService(8080), selector: { app: 'order' } }, pod: orders },
    ],
  },
};
