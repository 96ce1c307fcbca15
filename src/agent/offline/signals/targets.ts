/**
 * The dependency a failure line names: the host (and port) the app could not reach,
 * resolve or log in to, read in the forms the stacks print (target-forms.ts). When a line
 * names several, the one named first wins: stacks put the target before the cause
 * (`Get "http://inventory:8080/": dial tcp 10.96.5.5:8080: ...`). The resolver the app
 * asked is never the target.
 */
import { TARGET_FORMS, type DependencyTarget } from './target-forms.ts';

export { isClusterDnsFailure } from './cluster-dns.ts';
export type { DependencyTarget } from './target-forms.ts';

/** Port 53 is the resolver the app asked (`lookup x on 10.96.0.10:53`), not the dependency it wanted. */
const RESOLVER_PORT = 53;

/** The forms for matchAll: a line may name the resolver first and the target after it. */
const GLOBAL_PATTERNS = TARGET_FORMS.map((form) => new RegExp(form.pattern.source, `${form.pattern.flags}g`));

export function readDependencyTarget(line: string): DependencyTarget | undefined {
  let first: { index: number; target: DependencyTarget } | undefined;
  for (const pattern of GLOBAL_PATTERNS) {
    for (const match of line.matchAll(pattern)) {
      if (first && match.index >= first.index) break;
      const target = match.groups ? targetOf(match.groups) : undefined;
      if (target && target.port !== RESOLVER_PORT) {
        first = { index: match.index, target };
        break;
      }
    }
  }
  return first?.target;
}

/** A form's alternatives each name their own groups (`host`, `host2`, `port2`...): one set is filled. */
function targetOf(groups: Record<string, string | undefined>): DependencyTarget | undefined {
  const filled = Object.entries(groups).filter((entry): entry is [string, string] => entry[1] !== undefined);
  // A sentence may end right after the name (`Could not resolve host: inventory.`).
  const host = filled.find(([name]) => name.startsWith('host'))?.[1]?.replace(/\.+$/, '');
  const port = filled.find(([name]) => name.startsWith('port'))?.[1];
  if (!host) return undefined;
  return port ? { host, port: Number(port) } : { host };
}
