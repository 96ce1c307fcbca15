/**
 * The Kubernetes API refusing an in-cluster client: `... is forbidden: User
 * "system:serviceaccount:NS:NAME" cannot VERB resource "RESOURCE" in API group "G" in the
 * namespace "X"`. Each row reads one way a client prints the API server's refusal (client-go's
 * reflector, the Python and Java clients' JSON bodies with escaped quotes, kubectl). The
 * refusal names who was refused what, where: what the binding trail is checked against.
 */

export interface AccessRefusal {
  /** The refused service account, when the user is one. */
  serviceAccount?: { namespace: string; name: string };
  /** The user as the API server named it. */
  user: string;
  verb: string;
  resource: string;
  apiGroup: string;
  /** Absent: the request was cluster-scoped. */
  namespace?: string;
}

export interface RefusalForm {
  id: string;
  means: string;
  pattern: RegExp;
  examples: { match: Array<{ line: string; refusal: AccessRefusal }>; noMatch: string[] };
}

const QUOTE = String.raw`\\*"`;

export const REFUSAL_FORMS: readonly RefusalForm[] = [
  {
    id: 'apiserver-forbidden',
    means: "the API server's RBAC refusal, as any client passes it on (quotes may be escaped inside a JSON body)",
    pattern: new RegExp(
      String.raw`User ${QUOTE}([^"\\]+)${QUOTE} cannot ([a-z]+) resource ${QUOTE}([^"\\]+)${QUOTE}(?: in API group ${QUOTE}([^"\\]*)${QUOTE})?(?: in the namespace ${QUOTE}([^"\\]+)${QUOTE}| at the cluster scope)?`,
    ),
    examples: {
      match: [
        {
          line: 'E1207 05:10:44.101  1 reflector.go:147] Failed to watch *v1.Pod: pods is forbidden: User "system:serviceaccount:ops:janitor" cannot list resource "pods" in API group "" in the namespace "batch"',
          refusal: {
            serviceAccount: { namespace: 'ops', name: 'janitor' },
            user: 'system:serviceaccount:ops:janitor',
            verb: 'list',
            resource: 'pods',
            apiGroup: '',
            namespace: 'batch',
          },
        },
        {
          line: 'kubernetes.client.exceptions.ApiException: (403) Reason: Forbidden HTTP response body: {"kind":"Status","message":"jobs.batch is forbidden: User \\"system:serviceaccount:data:etl\\" cannot create resource \\"jobs\\" in API group \\"batch\\" in the namespace \\"data\\"","reason":"Forbidden","code":403}',
          refusal: {
            serviceAccount: { namespace: 'data', name: 'etl' },
            user: 'system:serviceaccount:data:etl',
            verb: 'create',
            resource: 'jobs',
            apiGroup: 'batch',
            namespace: 'data',
          },
        },
        {
          line: 'nodes is forbidden: User "system:serviceaccount:monitoring:exporter" cannot list resource "nodes" in API group "" at the cluster scope',
          refusal: {
            serviceAccount: { namespace: 'monitoring', name: 'exporter' },
            user: 'system:serviceaccount:monitoring:exporter',
            verb: 'list',
            resource: 'nodes',
            apiGroup: '',
          },
        },
      ],
      noMatch: [
        'Error creating: pods "web-6f7d" is forbidden: exceeded quota: compute',
        '403 Forbidden: GET https://api.example.com/v1/charges',
      ],
    },
  },
];

/** The refusal the line carries, if it carries one. */
export function readAccessRefusal(line: string): AccessRefusal | undefined {
  for (const form of REFUSAL_FORMS) {
    const match = form.pattern.exec(line);
    if (!match) continue;
    const [, user, verb, resource, apiGroup, namespace] = match;
    const account = /^system:serviceaccount:([^:]+):(.+)$/.exec(user!);
    return {
      ...(account ? { serviceAccount: { namespace: account[1]!, name: account[2]! } } : {}),
      user: user!,
      verb: verb!,
      resource: resource!,
      apiGroup: apiGroup ?? '',
      ...(namespace ? { namespace } : {}),
    };
  }
  return undefined;
}

/** `service account ops/janitor may not list pods in namespace batch`. */
export function describeRefusal(refusal: AccessRefusal): string {
  const who = refusal.serviceAccount
    ? `service account ${refusal.serviceAccount.namespace}/${refusal.serviceAccount.name}`
    : `user ${refusal.user}`;
  const resource = refusal.apiGroup ? `${refusal.resource}.${refusal.apiGroup}` : refusal.resource;
  return `the Kubernetes API refuses ${who}: it may not ${refusal.verb} ${resource} ${refusal.namespace ? `in namespace ${refusal.namespace}` : 'at the cluster scope'} (RBAC forbidden)`;
}
