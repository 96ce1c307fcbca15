/**
 * A TLS certificate refused for its dates (`x509: certificate has expired or is not yet
 * valid: current time T is after E`): which host's certificate, and when it expired (or
 * becomes valid), read from the line itself; the log line as quoted is often cut before it.
 */
import type { Case, Finding } from '../case.ts';
import { readFailingValues } from '../trace/failing-values.ts';

/** The refusal, and its dates (a long line cut in its middle keeps its end, where the dates are). */
const EXPIRED = /x509: certificate has expired|certificate has expired or is not yet valid/;
const DATES = /(?:current time (\S+) )?is (after|before) (\d{4}-\d\d-\d\dT[\d:.]+Z)/;

export function certificateEvidence(finding: Finding, gathered: Case): string[] {
  if (finding.category !== 'bad-credentials') return [];
  const lines = [...(gathered.logs?.errorLines ?? []), ...(gathered.logs?.lines ?? [])];
  for (const line of lines) {
    const match = EXPIRED.test(line) ? DATES.exec(line) : null;
    if (!match) continue;
    const [, current, side, bound] = match as unknown as [string, string | undefined, string, string];
    const host = readFailingValues(line).find((value) => value.kind === 'host' || value.kind === 'url')?.value;
    const whose = host
      ? `the TLS certificate of ${host.replace(/^https?:\/\//, '').replace(/[/:].*$/, '')}`
      : 'the TLS certificate the app was shown';
    const clock = current ? ` (the client's clock read ${current})` : '';
    return [
      side === 'after'
        ? `${whose} expired at ${bound}${clock}`
        : `${whose} is not valid before ${bound}${clock}: check the clock or the certificate`,
    ];
  }
  return [];
}
