/**
 * `kubewhy diagnose --rung ACT` at a terminal, end to end: the command runs in a
 * pseudo-terminal (util-linux `script`), and the test answers the question as a person
 * would. The person reads the diagnosis, its evidence and the rollback's diff before being
 * asked; after "y" the rollback runs and the summary says what was done.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const DEMO = 'mock-cluster/scenarios/checkout-secret-rotation';
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** What a terminal shows, without colours and cursor moves. */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

async function diagnoseAtTerminal(
  answer: string,
): Promise<{ beforeQuestion: string; all: string; code: number | null }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-cli-act-'));
  try {
    const command = `${JSON.stringify(process.execPath)} bin/kubewhy.js diagnose --scenario ${DEMO} --rung ACT --act-namespace staging`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: {
        ...process.env,
        KUBEWHY_MODEL: 'offline',
        KUBEWHY_CLUSTER: 'mock',
        KUBEWHY_DATA_DIR: dataDir,
        ANTHROPIC_API_KEY: '',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill(), 60_000);
    let output = '';
    let beforeQuestion: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (beforeQuestion === undefined && plain(output).includes('[y/N]')) {
        beforeQuestion = plain(output);
        child.stdin.write(`${answer}\r`);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return { beforeQuestion: beforeQuestion ?? '', all: plain(output), code };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test(
  'at ACT the person sees the diagnosis, the evidence and the diff before the question; after y, the summary says what was done',
  { skip: hasScript ? false : 'util-linux script is not installed' },
  async () => {
    const { beforeQuestion, all, code } = await diagnoseAtTerminal('y');
    assert.equal(code, 0, all);
    const question = beforeQuestion.lastIndexOf('Approve rollout_undo {"namespace":"staging","name":"checkout-api"}');
    assert.ok(question >= 0, beforeQuestion);
    for (const shown of [
      /Diagnosis: bad-credentials — Deployment\/staging\/checkout-api \(confidence high\)/,
      /Evidence:\n {2}- /,
      /password authentication failed for user "checkout"/,
      /Why: .*roll back to revision 3/,
      /What changes \(server-side dry run\):\n {4}Deployment staging\/checkout-api: pod template of revision 4 → that of revision 3/,
      /app: env DB_PASSWORD: secretKeyRef checkout-db\/password-old → secretKeyRef checkout-db\/password\n/,
    ]) {
      const match = shown.exec(beforeQuestion);
      assert.ok(match && match.index < question, `${shown} is shown before the question:\n${beforeQuestion}`);
    }
    const after = all.slice(all.indexOf('[y/N]'));
    assert.match(after, /Rolled back Deployment staging\/checkout-api to revision 3 \(approved by terminal\)\./);
    assert.doesNotMatch(after, /Proposed remediation/);
    assert.match(after, /\[executed\] rollout_undo/);
  },
);

test(
  'at ACT, answering no leaves the cluster alone and the summary says the rollback was rejected',
  { skip: hasScript ? false : 'util-linux script is not installed' },
  async () => {
    const { all, code } = await diagnoseAtTerminal('n');
    assert.equal(code, 0, all);
    const after = all.slice(all.indexOf('[y/N]'));
    assert.match(
      after,
      /Not done: rolling back Deployment staging\/checkout-api to revision 3 was rejected by terminal\./,
    );
    assert.match(after, /\[rejected\] rollout_undo/);
  },
);
