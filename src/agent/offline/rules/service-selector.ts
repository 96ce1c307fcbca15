/**
 * Rule `service-selects-no-pod`: a Service's selector compared with the pods it matches,
 * and its targetPort with the ports they declare. A selector that matches no pod, or a
 * targetPort no matched pod declares, leaves the Service without endpoints.
 */
import type { Case, Finding } from '../case.ts';

/** A Service whose selector matches pods but whose targetPort names a port none of them declares: no endpoint can form. */
export function hasUnmatchedTargetPort(gathered: Case): boolean {
  const service = gathered.service;
  return (
    service !== undefined &&
    service.pods.total > 0 &&
    service.endpoints.ready.length === 0 &&
    service.unmatchedTargetPorts.length > 0
  );
}

/** The ports the pod behind the Service declares, by name: what its targetPort should say. */
function declaredPorts(gathered: Case): string[] {
  const pod = gathered.pod;
  const ports =
    pod?.spec.containers
      .filter((container) => !container.init)
      .flatMap((container) =>
        container.ports.map((port) => `${container.name} ${port.name ? `"${port.name}" = ` : ''}${port.containerPort}`),
      ) ?? [];
  return pod && ports.length ? [`pod ${pod.name} declares: ${ports.join(', ')}`] : [];
}

export function serviceFinding(gathered: Case): Finding {
  const service = gathered.service!;
  if (hasUnmatchedTargetPort(gathered)) {
    return {
      category: 'service-no-endpoints',
      cause: `the targetPort of Service ${service.namespace}/${service.name} (${service.unmatchedTargetPorts.join(', ')}) names a port that none of the ${service.pods.total} pod(s) its selector matches declares, so it has no endpoints`,
      evidence: [
        `Service ${service.namespace}/${service.name} ports: ${service.ports.map((port) => `${port.port} -> targetPort ${port.targetPort}`).join(', ')}; targetPort ${service.unmatchedTargetPorts.join(', ')} is declared by no matched pod`,
        `its selector matches ${service.pods.total} pod(s) (${Object.entries(service.pods.countsByStatus)
          .map(([status, count]) => `${status} ${count}`)
          .join(', ')}); ready endpoints: none`,
        ...declaredPorts(gathered),
      ],
      confidence: 'high',
    };
  }
  const selector = Object.entries(service.selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const labelHints = [
    ...Object.entries(service.labelValuesInNamespace ?? {}).map(
      ([key, values]) => `pods in ${service.namespace} carry ${key}=${values.join('|') || '(no such label)'}`,
    ),
    // The wanted value under another key is the near miss of a renamed label key ("app=search" where the selector asks app.kubernetes.io/name=search).
    ...Object.entries(service.wantedValueUnderOtherKeys ?? {}).map(
      ([key, labels]) =>
        `the selector wants ${key}=${service.selector[key]}; pods in ${service.namespace} carry ${labels.join(', ')} instead`,
    ),
  ];
  if (service.pods.total === 0) {
    return {
      category: 'service-no-endpoints',
      cause: `the selector of Service ${service.namespace}/${service.name} matches no pod`,
      evidence: [
        `Service ${service.namespace}/${service.name} selector ${selector || '(none)'} matches no pod; endpoints: none ready`,
        ...labelHints,
      ],
      confidence: 'high',
    };
  }
  return {
    category: 'no-issue',
    cause: `Service ${service.namespace}/${service.name} has ${service.endpoints.ready.length} ready endpoint(s)`,
    evidence: [
      `Service ${service.namespace}/${service.name} selector ${selector} matches ${service.pods.total} pod(s); ${service.endpoints.ready.length} ready endpoint(s)`,
    ],
    confidence: 'medium',
  };
}
