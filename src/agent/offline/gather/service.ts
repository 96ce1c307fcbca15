/**
 * A Service in focus: its selector, endpoints and pods; a pod behind it in trouble (or, for
 * a Service alerted on while every pod is ready, one of its pods' logs) is followed.
 */
import type { FocusOf, Gathered } from '../case.ts';
import { pickWorstPod } from '../pods.ts';
import type { Gathering } from './gathering.ts';
import { intentBehindService } from './intent.ts';
import { missingField } from './missing.ts';

export function gatherForService(focus: FocusOf<'service'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const service = query.data('describe_service', { namespace: focus.namespace, name: focus.name });
  query.barrier();
  if (!service)
    return {
      focus,
      notFound: `Service ${focus.namespace}/${focus.name}`,
      ...missingField(
        { kind: 'Service', namespace: focus.namespace, name: focus.name },
        query.get('describe_service', { namespace: focus.namespace, name: focus.name }),
      ),
    };
  // Pods match but some are not ready: the pods' own trouble is the cause, not the Service.
  const worst = pickWorstPod(service.pods.pods);
  if (worst && !worst.healthy)
    return gathering.pod({ namespace: worst.namespace, name: worst.name }, { focus, service });
  // Healthy pods but no endpoint, and a targetPort no pod declares: one pod's ports show what it should name.
  if (worst && service.endpoints.ready.length === 0 && service.unmatchedTargetPorts.length > 0)
    return gathering.pod({ namespace: worst.namespace, name: worst.name }, { focus, service });
  // Every pod ready, yet the Service is alerted on (errors, latency): what its pods log says why.
  if (worst && service.endpoints.ready.length > 0)
    return gathering.pod(
      { namespace: worst.namespace, name: worst.name },
      { focus, service },
      { readHealthyLogs: true },
    );
  // No pod at all: the workload behind it may be at 0 on purpose, which is no outage.
  return { focus, service, ...intentBehindService(service, query) };
}
