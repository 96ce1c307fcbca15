/**
 * The decisive facts added to a finding once its category and culprit are known: where
 * the failing value is set, who the API refused and what binds it, both sides of a
 * mismatch. Each enricher reads the case and may ask for a few more tool calls; none
 * changes the category or the culprit. They run in the table's order, each line once.
 */
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';
import { addressNameEvidence } from './address-names.ts';
import { certificateEvidence } from './certificate-evidence.ts';
import { configDirectiveEvidence } from './config-directive.ts';
import { limitRangeEvidence } from './limit-range-evidence.ts';
import { mismatchEvidence } from './mismatch-evidence.ts';
import { refusalEvidence } from './refusal-evidence.ts';
import { sidecarEvidence } from './sidecar-evidence.ts';
import { valueSourceEvidence } from './value-evidence.ts';
import { filledClaimEvidence } from './volume-evidence.ts';

export interface Enricher {
  id: string;
  /** What the lines it adds tell a person on call. */
  tells: string;
  lines(finding: Finding, gathered: Case, query: Query): string[];
}

export const ENRICHERS: readonly Enricher[] = [
  {
    id: 'value-source',
    tells: 'where the value a failing line names is set, and the revision that changed it',
    lines: valueSourceEvidence,
  },
  {
    id: 'refusal',
    tells: 'who the Kubernetes API refused what, and what binds that service account',
    lines: refusalEvidence,
  },
  {
    id: 'address-names',
    tells: 'the Service or pod behind an IP address a failing line names',
    lines: addressNameEvidence,
  },
  {
    id: 'mismatch',
    tells: 'both sides of two objects that must agree and do not (explainers/)',
    lines: mismatchEvidence,
  },
  {
    id: 'sidecar',
    tells: 'what the sidecar a client dials on localhost logs, and how it is run',
    lines: sidecarEvidence,
  },
  {
    id: 'config-directive',
    tells: "the line of the process's own configuration its failure blames, as its ConfigMap writes it",
    lines: configDirectiveEvidence,
  },
  {
    id: 'certificate',
    tells: 'whose TLS certificate a client refused for its dates, and when it expired',
    lines: certificateEvidence,
  },
  {
    id: 'limit-range',
    tells: 'which LimitRange sets the bound a refused pod broke, and by how much',
    lines: limitRangeEvidence,
  },
  {
    id: 'filled-claim',
    tells: 'how big the full claim is, and whether its class lets it grow',
    lines: filledClaimEvidence,
  },
];

export function enrichEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const lines = ENRICHERS.flatMap((enricher) => enricher.lines(finding, gathered, query));
  return [...new Set(lines)].filter((line) => !finding.evidence.includes(line));
}
