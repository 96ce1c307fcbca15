/**
 * The hop from a container that waits on a dependency (an init container looping on
 * `nc -z db 5432`, a sidecar's wait-for-it) to the Service it waits for: such a container
 * is a client like any other. Its command and args name the host (trace/wait-commands.ts);
 * the host resolves to a Service, whose endpoints and backends are followed.
 */
import type { ContainerSpecData } from '../../../tools/format/pod-template.ts';
import type { Case, Conclusion } from '../case.ts';
import { troubledContainer } from '../containers.ts';
import { readWaitTarget, type WaitTarget } from '../trace/wait-commands.ts';
import { withEvidence, type HopInput } from './hop.ts';
import { followService } from './service-backend.ts';

/** The troubled init container's spec and what it waits on, when it waits on something. */
export function waitingContainer(gathered: Case): { container: ContainerSpecData; target: WaitTarget } | undefined {
  const pod = gathered.pod;
  const status = pod ? troubledContainer(pod.containers) : undefined;
  if (!pod || !status?.init) return undefined;
  const container = pod.spec.containers.find((spec) => spec.init && spec.name === status.name);
  const target = container
    ? readWaitTarget([...(container.command ?? []), ...(container.args ?? [])].join(' '))
    : undefined;
  return container && target ? { container, target } : undefined;
}

export function followWaitingContainer(
  input: HopInput & { container: ContainerSpecData; target: WaitTarget },
): Conclusion {
  const { gathered, finding, query, hops, container, target } = input;
  const pod = gathered.pod!;
  const host = target.port ? `${target.host}:${target.port}` : target.host;
  const resolved = query.data('resolve_host', { host, namespace: pod.namespace });
  query.barrier();
  const waits = `init container ${container.name} of pod ${pod.name} waits for ${host} (${target.via}) before the app starts`;
  if (!resolved?.service) {
    if (resolved?.resolvedBy !== 'none') return { gathered, finding: withEvidence(finding, [waits]) };
    const similar = resolved.similar.length ? `; similar Services there: ${resolved.similar.join(', ')}` : '';
    return {
      gathered,
      finding: withEvidence(finding, [
        waits,
        `${target.host} resolves to no Service: there is no Service "${resolved.name ?? target.host}" in namespace ${resolved.namespace ?? pod.namespace}${similar}`,
      ]),
    };
  }
  const trail = `${waits}: followed to Service ${resolved.service.namespace}/${resolved.service.name}`;
  return followService({
    gathered,
    finding,
    query,
    follow: input.follow,
    hops: hops + 1,
    service: resolved.service,
    trail,
  });
}
