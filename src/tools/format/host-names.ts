/**
 * Host names as a client's log names them, read the way cluster DNS would: a short name in
 * the client's namespace, `name.namespace`, `name.namespace.svc[.cluster.local]`, a headless
 * Service's pod `pod.name.namespace.svc...`, a pod A record `10-1-2-3.namespace.pod...`, an IP,
 * or a name outside the cluster. Parsing only: no cluster call happens here.
 */

/** One way the name may be served by cluster DNS, in the order the pod's search path tries them. */
export interface ServiceCandidate {
  namespace: string;
  service: string;
  /** A headless Service's pod hostname (`redis-0` in `redis-0.redis.data.svc`). */
  podHostname?: string;
  /** The fully qualified name this reading stands for. */
  fqdn: string;
}

export type ParsedHost =
  | { kind: 'names'; host: string; port?: number; candidates: ServiceCandidate[] }
  | { kind: 'ip'; host: string; ip: string; port?: number }
  | { kind: 'external'; host: string; port?: number; reason: string }
  | { kind: 'loopback'; host: string; port?: number }
  | { kind: 'unserved'; host: string; port?: number; reason: string }
  | { kind: 'invalid'; reason: string };

/**
 * Suffixes that put a name outside the cluster beyond doubt. Only top-level domains that are
 * not plausible namespace names are listed: `dev`, `app`, `shop`, `internal` are left out, so
 * `cart.shop` is read as Service cart in namespace shop, as cluster DNS would first try it.
 */
export const OUTSIDE_SUFFIXES = {
  id: 'public-tld',
  means: 'a public domain: cluster DNS forwards it upstream; no Service or pod is involved',
  topLevelDomains: new Set([
    'com',
    'net',
    'org',
    'io',
    'co',
    'ai',
    'gov',
    'edu',
    'mil',
    'int',
    'info',
    'biz',
    'cloud',
    'xyz',
    'us',
    'uk',
    'de',
    'fr',
    'nl',
    'eu',
    'jp',
    'cn',
    'br',
    'au',
    'ca',
    'ch',
    'se',
    'es',
    'pl',
    'be',
    'dk',
    'fi',
    'ie',
    'nz',
    'sg',
    'kr',
    'ru',
    'at',
  ]),
  examples: {
    match: [
      'api.stripe.com',
      'stripe.com',
      'hooks.slack.com:443',
      'https://sqs.eu-west-1.amazonaws.com/queue',
      'db.example.io',
    ],
    noMatch: ['redis', 'cart.shop', 'api.dev', 'redis.data.svc.cluster.local', 'redis-0.redis.data'],
  },
} as const;

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function splitHostPort(text: string): { host: string; port?: number } | { error: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? '', ...(bracketed[2] ? { port: Number(bracketed[2]) } : {}) };
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const [host = '', port = ''] = text.split(':');
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return { error: `"${port}" is not a port` };
  return { host, port: Number(port) };
}

/** Strips a URL's scheme, credentials and path, keeping host and port (the scheme's default port when none is written). */
function stripUrl(raw: string): { hostPort: string; defaultPort?: number } | { error: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      const defaultPort = DEFAULT_PORTS[url.protocol];
      return {
        hostPort: url.port ? `${url.hostname}:${url.port}` : url.hostname,
        ...(defaultPort ? { defaultPort } : {}),
      };
    } catch {
      return { error: 'not a URL that can be parsed' };
    }
  }
  const withoutPath = raw.split('/')[0] ?? '';
  return { hostPort: withoutPath.slice(withoutPath.lastIndexOf('@') + 1) };
}

function readNames(host: string, labels: string[], clientNamespace: string, port: number | undefined): ParsedHost {
  const portPart = port !== undefined ? { port } : {};
  const svcAt = labels.indexOf('svc');
  if (svcAt === 2)
    return {
      kind: 'names',
      host,
      ...portPart,
      candidates: [
        {
          service: labels[0] ?? '',
          namespace: labels[1] ?? '',
          fqdn: `${labels.slice(0, 2).join('.')}.svc.cluster.local`,
        },
      ],
    };
  if (svcAt === 3) {
    const [podHostname = '', service = '', namespace = ''] = labels;
    return {
      kind: 'names',
      host,
      ...portPart,
      candidates: [
        { podHostname, service, namespace, fqdn: `${podHostname}.${service}.${namespace}.svc.cluster.local` },
      ],
    };
  }
  if (svcAt >= 0)
    return {
      kind: 'unserved',
      host,
      ...portPart,
      reason: 'a .svc name needs service.namespace.svc (or pod.service.namespace.svc) before "svc"',
    };
  const dashedIp = labels[0]?.replaceAll('-', '.') ?? '';
  if (labels[2] === 'pod' && IPV4.test(dashedIp)) return { kind: 'ip', host, ip: dashedIp, ...portPart };
  const last = labels.at(-1) ?? '';
  if (labels.length >= 2 && OUTSIDE_SUFFIXES.topLevelDomains.has(last))
    return { kind: 'external', host, ...portPart, reason: OUTSIDE_SUFFIXES.means };
  if (host.endsWith('.cluster.local'))
    return {
      kind: 'unserved',
      host,
      ...portPart,
      reason: 'cluster DNS serves only NAME.NAMESPACE.svc and POD-IP.NAMESPACE.pod names under cluster.local',
    };
  if (labels.length === 1)
    return {
      kind: 'names',
      host,
      ...portPart,
      candidates: [{ service: host, namespace: clientNamespace, fqdn: `${host}.${clientNamespace}.svc.cluster.local` }],
    };
  if (labels.length === 2) {
    const [first = '', second = ''] = labels;
    // The search path tries <name>.<client namespace>.svc first (pod first of a headless Service second), then Service first in namespace second.
    return {
      kind: 'names',
      host,
      ...portPart,
      candidates: [
        {
          podHostname: first,
          service: second,
          namespace: clientNamespace,
          fqdn: `${first}.${second}.${clientNamespace}.svc.cluster.local`,
        },
        { service: first, namespace: second, fqdn: `${first}.${second}.svc.cluster.local` },
      ],
    };
  }
  if (labels.length === 3) {
    const [podHostname = '', service = '', namespace = ''] = labels;
    return {
      kind: 'names',
      host,
      ...portPart,
      candidates: [{ podHostname, service, namespace, fqdn: `${host}.svc.cluster.local` }],
    };
  }
  return {
    kind: 'unserved',
    host,
    ...portPart,
    reason: 'no reading of this name is a Service or pod name; cluster DNS forwards it upstream',
  };
}

/** Reads `raw` (host, host:port, IP, IP:port or URL) as cluster DNS would for a pod in `clientNamespace`. */
export function parseHost(raw: string, clientNamespace: string): ParsedHost {
  const trimmed = raw.trim();
  if (!trimmed) return { kind: 'invalid', reason: 'the host is empty' };
  const stripped = stripUrl(trimmed);
  if ('error' in stripped) return { kind: 'invalid', reason: stripped.error };
  const split = splitHostPort(stripped.hostPort);
  if ('error' in split) return { kind: 'invalid', reason: split.error };
  const host = split.host.toLowerCase().replace(/\.$/, '');
  const port = split.port ?? stripped.defaultPort;
  const portPart = port !== undefined ? { port } : {};
  if (!host) return { kind: 'invalid', reason: 'no host name in it' };
  if (host === 'localhost' || host === '::1' || host.startsWith('127.')) return { kind: 'loopback', host, ...portPart };
  if (IPV4.test(host) || host.includes(':')) return { kind: 'ip', host, ip: host, ...portPart };
  const labels = host.split('.');
  if (!labels.every((label) => DNS_LABEL.test(label)))
    return { kind: 'invalid', reason: `"${host}" is not a DNS name (labels are lowercase letters, digits and "-")` };
  return readNames(host, labels, clientNamespace, port);
}

/** Levenshtein distance: letters to insert, delete or change to turn one name into the other. */
export function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = (previous[column - 1] ?? 0) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

/** Names close to `wanted`: a few edits apart, one containing the other, or sharing a word; closest first, at most `limit`. */
export function findSimilarNames(wanted: string, names: readonly string[], limit = 5): string[] {
  const words = new Set(wanted.split('-').filter((word) => word.length >= 3));
  return names
    .map((name) => ({ name, distance: editDistance(wanted, name) }))
    .filter(({ name, distance }) => {
      if (name === wanted) return false;
      if (distance <= Math.max(2, Math.floor(wanted.length / 3))) return true;
      if (wanted.length >= 3 && (name.includes(wanted) || wanted.includes(name))) return true;
      return name.split('-').some((word) => words.has(word));
    })
    .sort((left, right) => left.distance - right.distance || left.name.localeCompare(right.name))
    .slice(0, limit)
    .map(({ name }) => name);
}
