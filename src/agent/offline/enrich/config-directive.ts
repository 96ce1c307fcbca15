/**
 * A failing line that blames one directive of the process's own configuration (CoreDNS's
 * loop detection blames its `forward`, nginx's unresolved upstream its `proxy_pass` or
 * `server`): the directive as the mounted ConfigMap writes it, quoted with its object and
 * key, is what a person edits. Each row: the failure, the directive, and examples of both.
 */
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';

export interface DirectiveRow {
  id: string;
  /** The failing line. */
  failure: RegExp;
  /** The configuration lines it blames. */
  directive: RegExp;
  means: string;
  examples: { fails: string[]; doesNotFail: string[]; directives: string[]; notDirectives: string[] };
}

export const DIRECTIVE_ROWS: readonly DirectiveRow[] = [
  {
    id: 'coredns-forward-loop',
    failure: /plugin\/loop: Loop \(.*\) detected/,
    directive: /^\s*forward\s+\S+.*$/gm,
    means:
      'CoreDNS forwards queries back to itself: its forward target must be an upstream resolver, not the cluster DNS address or a resolv.conf that points at it',
    examples: {
      fails: [
        '[FATAL] plugin/loop: Loop (127.0.0.1:45145 -> :53) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting',
      ],
      doesNotFail: ['[ERROR] plugin/errors: 2 example.com. A: read udp 10.0.0.5:53: i/o timeout'],
      directives: ['    forward . 172.20.0.10', 'forward . /etc/resolv.conf {'],
      notDirectives: ['    cache 30', '    # forward . 8.8.8.8 was here'],
    },
  },
  {
    id: 'nginx-upstream-host',
    failure: /host not found in upstream "([^"]+)"/,
    directive: /^\s*(proxy_pass|server|upstream)\s+\S+.*$/gm,
    means: 'nginx refuses to start when a host in its upstreams does not resolve',
    examples: {
      fails: ['nginx: [emerg] host not found in upstream "api-v2:8080" in /etc/nginx/conf.d/default.conf:12'],
      doesNotFail: ['nginx: [warn] the "user" directive makes sense only if the master process runs'],
      directives: ['    proxy_pass http://api-v2:8080;', '  server api-v2:8080;'],
      notDirectives: ['    listen 80;', '# proxy_pass http://old:8080;'],
    },
  },
];

/** The lines of a configuration text that the row's failure blames, commented-out ones left out. */
export function directiveLines(row: DirectiveRow, text: string): string[] {
  return [...text.matchAll(row.directive)].map((match) => match[0].trim()).filter((line) => !line.startsWith('#'));
}

/** Up to this many directive lines are quoted. */
const QUOTED = 3;

export function configDirectiveEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const pod = gathered.pod;
  if (!pod) return [];
  const lines = [...finding.evidence, ...(gathered.logs?.errorLines ?? [])];
  const row = DIRECTIVE_ROWS.find((candidate) => lines.some((line) => candidate.failure.test(line)));
  if (!row) return [];
  const mounted = [
    ...new Set(
      pod.spec.volumes
        .filter((volume) => volume.kind === 'configMap' && volume.sourceName)
        .map((volume) => volume.sourceName!),
    ),
  ].slice(0, 2);
  const configMaps = mounted.map(
    (name) => query.data('list_config_maps', { namespace: pod.namespace, name })?.configMaps[0],
  );
  query.barrier();
  for (const configMap of configMaps) {
    for (const [key, value] of Object.entries(configMap?.values ?? {})) {
      const found = directiveLines(row, value);
      if (found.length)
        return [
          `ConfigMap ${pod.namespace}/${configMap?.name ?? ''} key ${key} says: ${found
            .slice(0, QUOTED)
            .map((line) => `"${line}"`)
            .join(', ')}; ${row.means}`,
        ];
    }
  }
  return [];
}
