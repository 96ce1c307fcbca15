/**
 * The sidecars a client reaches its dependency through: a failing line that dials localhost
 * (127.0.0.1, ::1, a unix socket, /cloudsql/) talks to another container of its own pod (a
 * Cloud SQL proxy, an Envoy, a PgBouncer), which is then the client that fails.
 */
import type { Case, Finding } from './case.ts';

const LOCAL_TARGET = /(^|[^\d.])(127\.0\.0\.1|localhost|\[::1\])([^\d.]|$)|\bunix socket|\/cloudsql\//i;
const CATEGORIES = new Set(['dependency-unreachable', 'bad-credentials', 'app-crash']);
const MAX_SIDECARS = 3;

/** The containers beside the client that its failing line, dialling localhost, reaches; none when it dials elsewhere. */
export function localSidecars(finding: Finding, gathered: Case): NonNullable<Case['pod']>['spec']['containers'] {
  const pod = gathered.pod;
  if (!pod || !CATEGORIES.has(finding.category)) return [];
  const quoted = [
    ...finding.evidence.filter((line) => line.startsWith('log: ')),
    ...(gathered.logs?.errorLines ?? []).slice(-10),
  ];
  if (!quoted.some((line) => LOCAL_TARGET.test(line))) return [];
  const client = gathered.logs?.container;
  // A native sidecar is an init container that keeps running: it counts too.
  const running = new Set(
    pod.containers.filter((status) => status.state.state === 'running').map((status) => status.name),
  );
  return pod.spec.containers
    .filter((container) => (!container.init || running.has(container.name)) && container.name !== client)
    .slice(0, MAX_SIDECARS);
}
