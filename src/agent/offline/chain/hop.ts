/**
 * What every hop of the chain shares: where it starts (the client's case and finding, the
 * hops taken), the chain itself to follow on with (bound in follow-chain.ts, so no hop
 * imports it back), and how a backend's finding is told with the client as evidence.
 */
import type { Case, Conclusion, Finding } from '../case.ts';
import type { Query } from '../query.ts';

/** At most this many hops from the object that alerted. */
export const MAX_HOPS = 3;

export type FollowChain = (gathered: Case, finding: Finding, query: Query, hops?: number) => Conclusion;

export interface HopInput {
  gathered: Case;
  finding: Finding;
  query: Query;
  hops: number;
  follow: FollowChain;
}

/** The backend's finding, with the trail and the client's symptom after its own evidence. */
export function merge(
  backend: Finding,
  trail: string,
  client: { label: string; lines: string[]; rule: string },
): Finding {
  return {
    ...backend,
    cause: `${backend.cause}; this is why ${client.label} cannot reach it`,
    evidence: [...backend.evidence, trail, ...client.lines],
    rule: `${backend.rule ?? 'backend'} via ${client.rule}`,
  };
}

export function clientEvidence(gathered: Case, finding: Finding): { label: string; lines: string[]; rule: string } {
  const workload = gathered.workload;
  const label = workload ? `${workload.kind} ${workload.namespace}/${workload.name}` : `pod ${gathered.pod?.name}`;
  return {
    label,
    rule: finding.rule ?? 'unknown',
    lines: finding.evidence.slice(0, 3).map((line) => `${label} (where the failure shows): ${line}`),
  };
}

export function withEvidence(finding: Finding, lines: string[]): Finding {
  return { ...finding, evidence: [...finding.evidence, ...lines] };
}
