import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBlockKitProblem } from '../../../test/helpers/notify-receivers.ts';
import { buildDiagnosedRun, buildFailedRun, buildNotice, RUN_URL } from '../../../test/helpers/notify-notices.ts';
import type { RunView } from '../../runs/run-view.ts';
import { renderSlackMessage, SLACK_LIMITS } from './slack-blocks.ts';

interface TextObject {
  type: string;
  text: string;
}
interface Block {
  type: string;
  text?: TextObject;
  fields?: TextObject[];
  elements?: TextObject[];
}

function render(...input: Parameters<typeof buildNotice>): { text: string; blocks: Block[] } {
  const message = renderSlackMessage(buildNotice(...input));
  assert.equal(findBlockKitProblem(message.blocks), undefined);
  return message as { text: string; blocks: Block[] };
}

/** Every text of the message, in order, for assertions on what a person reads. */
function readAll(blocks: Block[]): string {
  return blocks
    .flatMap((block) => [
      block.text?.text,
      ...(block.fields ?? []).map((field) => field.text),
      ...(block.elements ?? []).map((element) => element.text),
    ])
    .filter(Boolean)
    .join('\n');
}

test('a finished run says its category and culprit in the header, and the facts a person on call checks first, as fields', () => {
  const { blocks } = render('finished');
  assert.deepEqual(blocks[0], {
    type: 'header',
    text: { type: 'plain_text', text: 'bad-credentials: Deployment/staging/checkout-api', emoji: false },
  });
  assert.deepEqual(
    blocks[1]?.fields?.map((field) => field.text),
    [
      '*Category*\nbad-credentials',
      '*Culprit*\nDeployment/staging/checkout-api',
      '*Cluster*\nstaging-eu-west-1',
      '*Confidence*\nhigh',
      '*Namespace*\nstaging',
      '*Severity*\ncritical',
      '*Status*\nawaiting approval',
    ],
  );
  assert.match(
    blocks[2]?.text?.text ?? '',
    /^checkout-api has crash-looped since 08:39 because Postgres rejects its password/,
  );
});

test('a finished run lists its first five evidence lines, trimmed, and counts the rest', () => {
  const evidence = render('finished').blocks.find((block) => block.text?.text.startsWith('*Evidence*'));
  const lines = evidence?.text?.text.split('\n') ?? [];
  assert.equal(lines.filter((line) => line.startsWith('• ')).length, 5);
  assert.ok(lines.includes('• logs: FATAL: password authentication failed for user "checkout" (SQLSTATE 28P01)'));
  assert.equal(lines.at(-1), '_and 1 more in the console_');
});

test('a finished run shows its actions with their targets, and says a held one waits for approval and until when', () => {
  const actions = render('finished').blocks.find((block) => block.text?.text.startsWith('*Actions*'))?.text?.text ?? '';
  assert.match(
    actions,
    /• `rollout_undo` on `Deployment staging\/checkout-api` — waits for approval until 2026-12-02T09:30:00.000Z/,
  );
  assert.match(actions, /• `rollout_restart` on `staging\/checkout-api` — proposed, not run/);
});

test('the last block names the run and links to it in the console, when a console URL is configured', () => {
  assert.deepEqual(render('finished').blocks.at(-1), {
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: 'Run `run-7f3c2a`' },
      { type: 'mrkdwn', text: `<${RUN_URL}|Open run in kubewhy>` },
    ],
  });
  assert.deepEqual(render('finished', { runUrl: null }).blocks.at(-1)?.elements, [
    { type: 'mrkdwn', text: 'Run `run-7f3c2a`' },
  ]);
});

test('a mock cluster is named by its scenario, and what the alert named but the cluster lacks is listed', () => {
  const run = buildDiagnosedRun();
  run.cluster = { source: 'mock', server: 'mock://', scenario: 'checkout-secret-rotation' };
  run.diagnosis!.notFound = [
    { kind: 'Namespace', name: 'staging-old' },
    { kind: 'Pod', namespace: 'staging', name: 'checkout-api-0' },
  ];
  const text = readAll(render('finished', { run }).blocks);
  assert.match(text, /\*Cluster\*\nmock cluster, scenario checkout-secret-rotation/);
  assert.match(text, /\*Not found in the cluster\*\n• Namespace staging-old\n• Pod staging\/checkout-api-0/);
});

test('a failed run says it failed and why, without diagnosis fields', () => {
  const { blocks, text } = render('finished', { run: buildFailedRun() });
  assert.equal(blocks[0]?.text?.text, 'Run failed: KubePodCrashLooping, CheckoutErrorRateHigh');
  assert.deepEqual(
    blocks[1]?.fields?.map((field) => field.text.split('\n')[0]),
    ['*Cluster*', '*Namespace*', '*Severity*', '*Status*'],
  );
  assert.equal(
    blocks[2]?.text?.text,
    '*kubewhy could not diagnose this run.* the model API answered 529 (overloaded) five times; gave up after 3m',
  );
  assert.match(text, /^Run failed: .* — the model API answered 529/);
});

test('an approval says what waits, on what, why, its diff in a code block, and until when', () => {
  const { blocks, text } = render('approval');
  assert.equal(blocks[0]?.text?.text, 'Approval needed: rollout_undo on Deployment staging/checkout-api');
  assert.match(
    blocks[1]?.text?.text ?? '',
    /holds an action for bad-credentials: Deployment\/staging\/checkout-api until 2026-12-02T09:30:00.000Z\. Approve or reject it in the console\./,
  );
  const action = blocks[2]?.text?.text ?? '';
  assert.match(
    action,
    /^\*`rollout_undo` on `Deployment staging\/checkout-api`\* — waits for approval until 2026-12-02T09:30:00.000Z\n/,
  );
  assert.match(action, /\nRevision 4 points DB_PASSWORD at password-old/);
  assert.match(
    action,
    /\n```Deployment staging\/checkout-api: pod template of revision 4 → that of revision 3 \(rolled out as a new revision\)\napp: env DB_PASSWORD: secretKeyRef checkout-db\/password-old → secretKeyRef checkout-db\/password```$/,
  );
  assert.equal(blocks.at(-1)?.elements?.[1]?.text, `<${RUN_URL}|Open run in kubewhy>`);
  assert.equal(
    text,
    'Approval needed: rollout_undo on Deployment staging/checkout-api — Approve or reject in the console before 2026-12-02T09:30:00.000Z.',
  );
});

test("a resolved notice says the run's alerts resolved, by name, with the link", () => {
  const { blocks, text } = render('resolved');
  assert.equal(text, 'Resolved: KubePodCrashLooping, CheckoutErrorRateHigh');
  assert.equal(
    blocks[1]?.text?.text,
    'The alerts of this run resolved: *KubePodCrashLooping*, *CheckoutErrorRateHigh*. It was diagnosed as bad-credentials: Deployment/staging/checkout-api.',
  );
  assert.equal(blocks.at(-1)?.elements?.[1]?.text, `<${RUN_URL}|Open run in kubewhy>`);
});

test('a 5,000-character summary with markup is escaped and cut to a valid section; nothing the run wrote can mention or link', () => {
  const run = buildDiagnosedRun();
  run.diagnosis!.summary =
    `<script>alert(1)</script> <!channel> <https://evil.example|click> & ${'x & y '.repeat(900)}`.slice(0, 5000);
  run.diagnosis!.evidence = ['<@U123> see <https://evil.example|logs> & more'];
  const { blocks, text } = render('finished', { run });
  const summary = blocks[2]?.text?.text ?? '';
  assert.ok(summary.length <= SLACK_LIMITS.sectionText, String(summary.length));
  assert.ok(
    summary.startsWith(
      '&lt;script&gt;alert(1)&lt;/script&gt; &lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; x &amp; y',
    ),
  );
  assert.ok(summary.endsWith('…'));
  assert.doesNotMatch(summary, /&[a-z]{0,3}…$/, 'no entity is cut in half');
  assert.doesNotMatch(readAll(blocks) + text, /<script>|<!channel>|<@U123>|<https:\/\/evil/);
  assert.ok(text.length <= SLACK_LIMITS.fallbackText);
});

test('long names, many held actions and long diffs stay inside Block Kit limits', () => {
  const run = buildDiagnosedRun();
  run.diagnosis!.culprit = { kind: 'Deployment', namespace: 'n'.repeat(63), name: 'a'.repeat(253) };
  const held = run.actions[0]!;
  run.actions = Array.from({ length: 60 }, (_, index): RunView['actions'][number] => ({
    ...held,
    id: `act-${index}`,
    diff: Array.from({ length: 40 }, () => `${'line '.repeat(200)}\`\`\``),
  }));
  for (const event of ['finished', 'approval'] as const) {
    const { blocks } = render(event, { run });
    assert.ok(blocks.length <= SLACK_LIMITS.blocks);
    assert.ok((blocks[0]?.text?.text.length ?? 0) <= SLACK_LIMITS.headerText);
  }
  const approval = render('approval', { run }).blocks;
  assert.match(readAll(approval), /and 50 more actions in the console/);
  assert.equal(
    approval
      .filter((block) => /```/.test(block.text?.text ?? ''))
      .every((block) => ((block.text?.text ?? '').match(/```/g) ?? []).length === 2),
    true,
    'every code block is closed',
  );
});

test('a console URL with characters that end a Slack link is encoded, not cut', () => {
  const footer = render('finished', { runUrl: 'https://kubewhy.example.com/runs/a?b=1&c=2|x>y' }).blocks.at(-1);
  assert.equal(
    footer?.elements?.[1]?.text,
    '<https://kubewhy.example.com/runs/a?b=1&amp;c=2%7Cx%3Ey|Open run in kubewhy>',
  );
});

test('rendering is pure: the same notice renders the same message, and the notice is left as it was', () => {
  const notice = buildNotice('approval');
  const before = structuredClone(notice);
  assert.deepEqual(renderSlackMessage(notice), renderSlackMessage(notice));
  assert.deepEqual(notice, before);
});

test('an approval sent after every held action was decided says nothing waits any more, rather than asking', () => {
  const run = buildDiagnosedRun();
  run.actions = run.actions.map((action) => ({
    ...action,
    status: action.status === 'awaiting_approval' ? 'approved' : action.status,
  }));
  const { blocks, text } = render('approval', { run });
  assert.equal(blocks[0]?.text?.text, 'No approval needed any more: KubePodCrashLooping, CheckoutErrorRateHigh');
  assert.match(blocks[1]?.text?.text ?? '', /were decided or expired before this message was sent/);
  assert.doesNotMatch(text, /Approve or reject/);
});
