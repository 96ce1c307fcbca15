/**
 * Probe port/path ↔ what the container serves: a liveness, readiness or startup probe
 * aimed at a port the container neither declares nor listens on, at a port name it does
 * not have, or at a path its own log answers 404.
 */
import type { ContainerFacts, MismatchFacts, ProbeFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { exampleContainer, examplePod } from './example-objects.ts';
import { escapeRegExp } from '../mentions.ts';
import { describePorts, logContainerOf } from './log-container.ts';

const ID = 'probe-port-or-path-not-served';

interface ProbeMiss {
  readonly sentence: string;
  readonly expected: string;
  readonly actual: string;
}

/** A log line (an access log) that answered the probe's path with 404. */
function notFoundLine(path: string, lines: readonly string[]): string | undefined {
  const onPath = new RegExp(`(^|[\\s"'=])${escapeRegExp(path)}([\\s"'?]|$)`);
  return lines.find((line) => onPath.test(line) && /(^|[\s"=:|])404([\s",|]|$)/.test(line));
}

function missOf(
  probe: ProbeFacts,
  container: ContainerFacts,
  listening: readonly number[],
  lines: readonly string[],
  refusedPorts: readonly number[] = [],
): ProbeMiss | undefined {
  if (probe.handler === 'exec' || probe.port === undefined) return undefined;
  const what = `The ${probe.kind} probe of container ${container.name} (${probe.handler}${probe.path ? ` ${probe.path}` : ''})`;
  const serves = [
    container.ports.length > 0
      ? `the container declares ${describePorts(container.ports)}`
      : 'the container declares no ports',
    listening.length > 0 ? `its log says it listens on ${listening.join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join(' and ');
  const actual = [
    container.ports.length > 0 ? `ports ${describePorts(container.ports)}` : undefined,
    listening.length > 0 ? `listening on ${listening.join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
  let port: number;
  if (typeof probe.port === 'string' && !/^\d+$/.test(probe.port)) {
    const named = container.ports.find((declared) => declared.name === probe.port);
    if (!named)
      return {
        sentence: `${what} uses the port name ${probe.port}, but ${serves}, so the kubelet cannot resolve it and the probe fails every time.`,
        expected: `${probe.kind} probe port ${probe.port}`,
        actual: actual || 'no named ports',
      };
    port = named.containerPort;
  } else {
    port = Number(probe.port);
    const heard = container.ports.some((declared) => declared.containerPort === port) || listening.includes(port);
    if (!heard && (container.ports.length > 0 || listening.length > 0)) {
      return {
        sentence: `${what} checks port ${port}, but ${serves}.`,
        expected: `${probe.kind} probe port ${port}`,
        actual,
      };
    }
    // Declared, but the kubelet is refused there and the process says it listens elsewhere: the declaration is stale.
    if (refusedPorts.includes(port) && listening.length > 0 && !listening.includes(port)) {
      return {
        sentence: `${what} checks port ${port} and the kubelet is refused there: the container declares ${describePorts(container.ports)}, but its log says it listens on ${listening.join(', ')}, not ${port}.`,
        expected: `${probe.kind} probe port ${port}`,
        actual: `listening on ${listening.join(', ')}`,
      };
    }
  }
  const refused = probe.path && probe.handler === 'httpGet' ? notFoundLine(probe.path, lines) : undefined;
  if (refused)
    return {
      sentence: `${what} asks GET ${probe.path} on port ${port}, and the container answers 404 there: "${refused}".`,
      expected: `${probe.kind} probe path ${probe.path}`,
      actual: `404 for ${probe.path}`,
    };
  return undefined;
}

function explain(facts: MismatchFacts): Mismatch | undefined {
  if (!facts.pod) return undefined;
  const logged = logContainerOf(facts);
  const misses = facts.pod.containers.flatMap((container) => {
    const own = container === logged;
    return container.probes
      .map((probe) =>
        missOf(
          probe,
          container,
          own ? (facts.listeningPorts ?? []) : [],
          own ? (facts.logLines ?? []) : [],
          facts.refusedProbePorts ?? [],
        ),
      )
      .filter((miss): miss is ProbeMiss => miss !== undefined);
  });
  if (misses.length === 0) return undefined;
  return {
    id: ID,
    evidence: [
      ...misses.map((miss) => miss.sentence),
      'Point the probe at the port and path the container serves (or make the container serve them); a failing liveness probe restarts the container, a failing readiness probe keeps it out of the Service.',
    ],
    sides: {
      expected: misses.map((miss) => miss.expected).join('; '),
      actual: misses.map((miss) => miss.actual).join('; '),
    },
  };
}

const image = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/shop/catalog:2.4.0';
const catalog = (probes: ProbeFacts[], ports = [{ name: 'http', containerPort: 8080 }]) =>
  examplePod('catalog', { containers: [exampleContainer('catalog', { image, ports, probes })] });
const liveness = (port: number | string, path = '/healthz'): ProbeFacts => ({
  kind: 'liveness',
  handler: 'httpGet',
  port,
  path,
});

export const PROBE_PORT: Explainer = {
  id: ID,
  compares: 'Probe port/path ↔ container ports and log',
  means:
    'A probe checks a port or path the container does not serve, so it fails while the app is healthy: liveness restarts it in a loop, readiness keeps it out of its Service.',
  source:
    'spec.containers[].livenessProbe/readinessProbe/startupProbe against the container ports, the "listening on" line and access-log lines of the same container',
  explain,
  examples: {
    match: [
      {
        facts: { pod: catalog([liveness(8081)]), listeningPorts: [8080] },
        says: [
          /liveness probe of container catalog \(httpGet \/healthz\) checks port 8081/,
          /declares 8080 \(http\) and its log says it listens on 8080/,
        ],
      },
      {
        facts: { pod: catalog([{ kind: 'readiness', handler: 'tcpSocket', port: 'grpc' }]) },
        says: [/readiness probe .* uses the port name grpc, but the container declares 8080 \(http\)/],
      },
      {
        facts: {
          pod: catalog([{ kind: 'readiness', handler: 'httpGet', port: 'http', path: '/ready' }]),
          logLines: ['10.0.1.17 - - [12/Mar/2026:09:14:02 +0000] "GET /ready HTTP/1.1" 404 19 "-" "kube-probe/1.31"'],
        },
        says: [
          /readiness probe of container catalog \(httpGet \/ready\) asks GET \/ready on port 8080/,
          /answers 404 there/,
          /kube-probe\/1\.31/,
        ],
      },
      {
        facts: { pod: catalog([liveness(9090)], []), listeningPorts: [8080] },
        says: [/checks port 9090, but the container declares no ports and its log says it listens on 8080/],
      },
      {
        // A release moved the listener; the declared port and the probe stayed behind.
        facts: { pod: catalog([liveness(8080)]), listeningPorts: [9090, 7070], refusedProbePorts: [8080] },
        says: [
          /checks port 8080 and the kubelet is refused there: the container declares 8080 \(http\), but its log says it listens on 9090, 7070, not 8080/,
        ],
      },
    ],
    noMatch: [
      { pod: catalog([liveness(8080)]), listeningPorts: [8080] },
      { pod: catalog([liveness('http')]) },
      // Only the metrics listener logs its port, and the probe is not refused: the declared port stands.
      { pod: catalog([liveness(8080)]), listeningPorts: [9102] },
      // Declared by nobody, but the log says the process listens there.
      { pod: catalog([liveness(8081)]), listeningPorts: [8080, 8081] },
      { pod: catalog([{ kind: 'liveness', handler: 'exec' }]) },
      // Nothing declared and nothing heard: no evidence either way.
      { pod: catalog([liveness(8081)], []) },
      {
        pod: catalog([liveness(8080)]),
        logLines: [
          '10.0.1.17 - - "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.31"',
          '"GET /api/products/404 HTTP/1.1" 200 512',
        ],
      },
    ],
  },
};
