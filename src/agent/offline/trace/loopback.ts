/**
 * The pod's own network: a host that is loopback (127.0.0.0/8, localhost, ::1) or the
 * any-address a listener binds (0.0.0.0). No Service stands behind it and no pod spec
 * names it as a dependency: a client dialing it talks to a sidecar in its own pod.
 */
const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|localhost|0\.0\.0\.0|\[?::1\]?)$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}
