import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Case, Finding } from '../case.ts';
import { certificateEvidence } from './certificate-evidence.ts';

const finding = (category: Finding['category']): Finding => ({
  category,
  cause: 'a dependency refuses the credentials',
  evidence: [],
  confidence: 'high',
});
const withLines = (lines: string[]): Case => ({ logs: { lines, errorLines: [] } }) as unknown as Case;

test('an expired certificate is named by its host and the time it expired, even from the end of a cut line', () => {
  const whole =
    'Get "https://api.portlink-edi.com/v3/invoices": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-06-03T08:30:05Z is after 2026-06-03T06:12:44Z';
  assert.deepEqual(certificateEvidence(finding('bad-credentials'), withLines([whole])), [
    "the TLS certificate of api.portlink-edi.com expired at 2026-06-03T06:12:44Z (the client's clock read 2026-06-03T08:30:05Z)",
  ]);
  const cut =
    'Get "https://api.portlink-edi.com/v3/invoices": tls: x509: certificate has expired or is not yet valid: … [40 more chars] …me 2026-06-03T08:30:05Z is after 2026-06-03T06:12:44Z';
  assert.match(
    certificateEvidence(finding('bad-credentials'), withLines([cut]))[0] ?? '',
    /expired at 2026-06-03T06:12:44Z/,
  );
  assert.match(
    certificateEvidence(
      finding('bad-credentials'),
      withLines([
        'x509: certificate has expired or is not yet valid: current time 2026-06-03T08:30:05Z is before 2026-07-01T00:00:00Z',
      ]),
    )[0] ?? '',
    /not valid before 2026-07-01T00:00:00Z .*: check the clock or the certificate/,
  );
});

test('counter-examples: another refusal, a date without the x509 refusal, or another category says nothing', () => {
  assert.deepEqual(
    certificateEvidence(finding('bad-credentials'), withLines(['x509: certificate signed by unknown authority'])),
    [],
  );
  assert.deepEqual(
    certificateEvidence(finding('bad-credentials'), withLines(['token is after 2026-06-03T06:12:44Z and invalid'])),
    [],
  );
  assert.deepEqual(
    certificateEvidence(
      finding('app-crash'),
      withLines([
        'x509: certificate has expired or is not yet valid: current time 2026-06-03T08:30:05Z is after 2026-06-03T06:12:44Z',
      ]),
    ),
    [],
  );
});
