/**
 * What `serve` and `diagnose` say when kubectl's lookup finds no cluster: where they
 * looked, and the ways on (a kubeconfig, or the demo said out loud). They never fall back
 * to the demo by themselves: an answer about it must not pass for one about your cluster.
 */
export function noClusterMessage(searched: readonly string[]): string {
  return [
    'no cluster to read. Looked, as kubectl does, for:',
    ...searched.map((place) => `  - ${place}`),
    'Point at one with --kubeconfig FILE [--context NAME] (diagnose) or KUBECONFIG=FILE, or try the',
    'demo on the embedded mock cluster: KUBEWHY_CLUSTER=mock, `kubewhy serve --demo`, or',
    '`kubewhy diagnose --scenario DIR`.',
  ].join('\n');
}
