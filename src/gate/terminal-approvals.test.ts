import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { HeldAction } from './approvals.ts';
import { createTerminalApprovalBroker } from './terminal-approvals.ts';

const held: HeldAction = {
  runId: 'run-1',
  actionId: 'act-1',
  tool: 'rollout_undo',
  args: { namespace: 'staging', name: 'checkout-api' },
  expiresAt: new Date('2030-01-01T00:00:00Z'),
  reason:
    'roll back to revision 3, before app: env DB_PASSWORD: secretKeyRef checkout-db/password -> secretKeyRef checkout-db/password-old',
  diff: [
    'Deployment staging/checkout-api: pod template of revision 4 → that of revision 3',
    'app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password',
  ],
  diagnosis: {
    category: 'bad-credentials',
    culprit: 'Deployment/staging/checkout-api',
    summary: 'checkout-api crash-loops since revision 4: the database refuses its password.',
    evidence: [
      'log: FATAL: password authentication failed for user "checkout"',
      'env DATABASE_URL=postgres://checkout:hunter2hunter2@db:5432/shop',
    ],
    confidence: 'high',
  },
};

/** A terminal: input that says it is a TTY, output that keeps what was written. */
function terminal(isTTY: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY }) as unknown as NodeJS.ReadStream;
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  return {
    input,
    output: output as unknown as NodeJS.WriteStream,
    written: () => written,
    answer: (text: string) => (input as unknown as PassThrough).write(text),
  };
}

async function waitForQuestion(read: () => string): Promise<void> {
  while (!read().includes('[y/N]')) await new Promise((resolve) => setImmediate(resolve));
}

test('the person reads the diagnosis, the evidence, the reason and the diff before the question, and y approves', async () => {
  const tty = terminal(true);
  const broker = createTerminalApprovalBroker({ input: tty.input, output: tty.output });
  const decision = broker.waitForDecision(held, new AbortController().signal);
  await waitForQuestion(tty.written);
  const shown = tty.written();
  const question = shown.indexOf('Approve rollout_undo');
  for (const expected of [
    'Diagnosis: bad-credentials — Deployment/staging/checkout-api (confidence high)',
    'Evidence:',
    'password authentication failed',
    'Why: roll back to revision 3',
    'What changes (server-side dry run):',
    'app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password',
  ]) {
    const at = shown.indexOf(expected);
    assert.ok(at >= 0 && at < question, `${expected} is shown before the question:\n${shown}`);
  }
  assert.doesNotMatch(shown, /hunter2hunter2/, 'what is shown passes the redactor');
  tty.answer('y\n');
  assert.deepEqual(await decision, { decision: 'approved', by: 'terminal' });
});

test('the diagnosis is shown once per run; a second action shows its own reason and diff; anything but y rejects', async () => {
  const tty = terminal(true);
  const broker = createTerminalApprovalBroker({ input: tty.input, output: tty.output });
  const first = broker.waitForDecision(held, new AbortController().signal);
  await waitForQuestion(tty.written);
  tty.answer('n\n');
  assert.equal((await first).decision, 'rejected');
  const before = tty.written().length;
  const second = broker.waitForDecision(
    {
      ...held,
      actionId: 'act-2',
      tool: 'scale',
      args: { namespace: 'staging', name: 'checkout-api', replicas: 0 },
      reason: 'stop it',
      diff: ['Deployment staging/checkout-api: replicas 3 → 0'],
    },
    new AbortController().signal,
  );
  await waitForQuestion(() => tty.written().slice(before));
  const shown = tty.written().slice(before);
  assert.doesNotMatch(shown, /Diagnosis:/);
  assert.match(shown, /Why: stop it/);
  assert.match(shown, /replicas 3 → 0/);
  tty.answer('\n');
  assert.equal((await second).decision, 'rejected');
});

test('with no TTY nobody is asked: the action is rejected and nothing is printed', async () => {
  const pipe = terminal(false);
  const broker = createTerminalApprovalBroker({ input: pipe.input, output: pipe.output });
  const outcome = await broker.waitForDecision(held, new AbortController().signal);
  assert.equal(outcome.decision, 'rejected');
  assert.match(outcome.reason ?? '', /not a TTY/);
  assert.equal(pipe.written(), '');
});

test("no answer by the action's deadline: it expires, and the person is told", async () => {
  const tty = terminal(true);
  const broker = createTerminalApprovalBroker({ input: tty.input, output: tty.output });
  const outcome = await broker.waitForDecision(
    { ...held, expiresAt: new Date(Date.now() + 20) },
    new AbortController().signal,
  );
  assert.deepEqual(outcome, { decision: 'expired', reason: 'no decision before the approval deadline' });
  assert.match(tty.written(), /No answer before the approval deadline: not approved\./);
});
