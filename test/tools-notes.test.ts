import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatWorkloadLine, summarizeWorkload } from '../src/tools/format/workloads.ts';
import { readNotes } from '../src/tools/format/notes.ts';

const now = new Date('2026-12-01T10:00:00Z');

describe('notes a person wrote on a workload', () => {
  it('keeps change-cause and team annotations, drops what tools write', () => {
    const notes = readNotes({
      annotations: {
        'kubernetes.io/change-cause': 'scaled to 0: decommissioned per CHG-4471',
        'deployment.kubernetes.io/revision': '7',
        'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps/v1"}',
        'meta.helm.sh/release-name': 'ledger',
        'ops.example.com/owner': 'payments team',
      },
    });
    assert.deepEqual(notes, {
      'kubernetes.io/change-cause': 'scaled to 0: decommissioned per CHG-4471',
      'ops.example.com/owner': 'payments team',
    });
  });

  it('masks a credential someone pasted into an annotation', () => {
    const notes = readNotes({ annotations: { 'ops.example.com/db-password': 'hunter2-very-secret' } });
    assert.ok(notes);
    assert.doesNotMatch(JSON.stringify(notes), /hunter2/);
  });

  it('shows the notes of a workload at 0 replicas in its listing line, and not of one that runs', () => {
    const workload = (replicas: number) =>
      summarizeWorkload(
        'Deployment',
        {
          metadata: {
            name: 'ledger-v1',
            namespace: 'ledger',
            annotations: { 'ops.example.com/decommissioned': '2026-11-20, replaced by ledger-v2' },
          },
          spec: {
            replicas,
            selector: { matchLabels: { app: 'ledger-v1' } },
            template: { spec: { containers: [{ name: 'app', image: 'ledger:1' }] } },
          },
          status: {},
        },
        now,
      );
    assert.match(
      formatWorkloadLine(workload(0), now, { withNamespace: true }),
      /note ops\.example\.com\/decommissioned: "2026-11-20, replaced by ledger-v2"/,
    );
    assert.doesNotMatch(formatWorkloadLine(workload(2), now, { withNamespace: true }), /note /);
    assert.equal(workload(2).notes?.['ops.example.com/decommissioned'], '2026-11-20, replaced by ledger-v2');
  });
});
