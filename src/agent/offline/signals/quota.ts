/**
 * Messages in which the API server refuses to create a pod because of a ResourceQuota or
 * a LimitRange in its namespace (FailedCreate events of a ReplicaSet, Job or StatefulSet).
 */
import type { Row } from './types.ts';

export const QUOTA_REFUSALS: readonly Row[] = [
  {
    id: 'resource-quota-exceeded',
    pattern: /exceeded quota/i,
    means: 'Creating the pod would take the namespace past a ResourceQuota.',
    source:
      'kube-apiserver ResourceQuota admission: pods "x" is forbidden: exceeded quota: compute, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi',
    examples: {
      match: [
        'Error creating: pods "web-7d9f8b6c5-x2k4p" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=500m, used: requests.cpu=3800m, limited: requests.cpu=4',
      ],
      noMatch: ['Created pod: web-7d9f8b6c5-x2k4p'],
    },
  },
  {
    id: 'resource-quota-requires-resources',
    pattern: /must specify (limits|requests)/i,
    means:
      'A ResourceQuota covers CPU or memory, so every pod must state the requests or limits it counts, and this one does not.',
    source:
      'kube-apiserver ResourceQuota admission: pods "x" is forbidden: failed quota: compute: must specify limits.cpu for: app; limits.memory for: app',
    examples: {
      match: [
        'Error creating: pods "report-28853340-abcde" is forbidden: failed quota: compute-quota: must specify limits.cpu for: report; limits.memory for: report',
        'Error creating: pods "api-5c7b9" is forbidden: failed quota: mem: must specify requests.memory',
      ],
      noMatch: ['spec.containers[0].resources.limits.cpu: Invalid value: "2": must be less than or equal to cpu limit'],
    },
  },
  {
    id: 'limit-range-bound',
    pattern: /forbidden: \[?(maximum|minimum)\b/i,
    means:
      "A LimitRange bounds each container's or pod's requests and limits, and this pod asks for more (or less) than it allows.",
    source:
      'kube-apiserver LimitRanger admission: pods "x" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi',
    examples: {
      match: [
        'Error creating: pods "web-6f7d-q9x2l" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi',
        'Error creating: pods "web-6f7d-q9x2l" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]',
      ],
      noMatch: [
        'pods "web-6f7d-q9x2l" is forbidden: error looking up service account shop/web: serviceaccount "web" not found',
      ],
    },
  },
  {
    id: 'limit-range-ratio',
    pattern: /forbidden: \[?\S+ max limit to request ratio per (Container|Pod) is/i,
    means: "A LimitRange caps how far a container's limit may exceed its request, and this pod's ratio is larger.",
    source:
      'kube-apiserver LimitRanger admission: pods "x" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 4.000000',
    examples: {
      match: [
        'Error creating: pods "web-6f7d-q9x2l" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 4.000000',
      ],
      noMatch: [
        'Error creating: pods "web-6f7d-q9x2l" is forbidden: unable to validate against any pod security policy',
      ],
    },
  },
  {
    id: 'limit-range-named',
    pattern: /LimitRange/i,
    means: 'The message names a LimitRange as what refused the pod.',
    source: 'kube-apiserver LimitRanger admission and controllers relaying it',
    examples: {
      match: [
        'Error creating: pods "web-6f7d-q9x2l" is forbidden: LimitRange default-limits: maximum memory usage per Container is 1Gi',
      ],
      noMatch: ['Error creating: pods "web-6f7d-q9x2l" is forbidden: violates PodSecurity "restricted:latest"'],
    },
  },
];

/** Any of QUOTA_REFUSALS as one pattern, for callers that test a message once. */
export const QUOTA_REFUSAL = new RegExp(QUOTA_REFUSALS.map((row) => `(?:${row.pattern.source})`).join('|'), 'i');

export function isQuotaRefusal(message: string): boolean {
  return QUOTA_REFUSAL.test(message);
}
