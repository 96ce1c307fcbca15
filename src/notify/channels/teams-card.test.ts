import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDiagnosedRun, buildFailedRun, buildNotice, RUN_URL } from '../../../test/helpers/notify-notices.ts';
import { renderTeamsMessage, TEAMS_LIMITS } from './teams-card.ts';

type Element = {
  type: string;
  text?: string;
  size?: string;
  weight?: string;
  facts?: { title: string; value: string }[];
  inlines?: { text: string; fontType?: string }[];
};

function renderCard(...input: Parameters<typeof buildNotice>) {
  const message = renderTeamsMessage(buildNotice(...input));
  const [attachment] = message.attachments;
  return { message, card: attachment.content, body: attachment.content.body as Element[] };
}

/** What a person reads, one element a line: TextBlocks' text, RichTextBlocks' runs, facts as `title: value`. */
function readAll(body: Element[]): string[] {
  return body.flatMap((element) =>
    element.facts
      ? element.facts.map((fact) => `${fact.title}: ${fact.value}`)
      : [element.text ?? element.inlines?.map((run) => run.text).join('') ?? ''],
  );
}

test('the body is a Workflows message with one Adaptive Card 1.4 attachment, and the console link as its action', () => {
  const { message, card } = renderCard('finished');
  assert.equal(message.type, 'message');
  assert.equal(message.attachments.length, 1);
  assert.equal(message.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
  assert.equal(message.attachments[0].contentUrl, null);
  assert.equal(card.$schema, 'http://adaptivecards.io/schemas/adaptive-card.json');
  assert.equal(card.type, 'AdaptiveCard');
  assert.equal(card.version, '1.4');
  assert.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open run in kubewhy', url: RUN_URL }]);
  assert.equal('actions' in renderCard('finished', { runUrl: null }).card, false, 'no link without a console URL');
});

test('a finished run: a large bold title, the summary, the facts, the first five evidence lines and the actions', () => {
  const { body } = renderCard('finished');
  assert.deepEqual(body[0], {
    type: 'TextBlock',
    text: 'bad-credentials: Deployment/staging/checkout-api',
    size: 'Large',
    weight: 'Bolder',
    wrap: true,
  });
  const lines = readAll(body);
  assert.match(lines[1] ?? '', /^checkout-api has crash-looped since 08:39/);
  assert.deepEqual(body.find((element) => element.type === 'FactSet')?.facts, [
    { title: 'Category', value: 'bad-credentials' },
    { title: 'Culprit', value: 'Deployment/staging/checkout-api' },
    { title: 'Cluster', value: 'staging-eu-west-1' },
    { title: 'Confidence', value: 'high' },
    { title: 'Namespace', value: 'staging' },
    { title: 'Severity', value: 'critical' },
    { title: 'Status', value: 'awaiting approval' },
  ]);
  assert.equal(
    lines.filter((line) => line.startsWith('• ') && /pod|logs|deployment|secret|revision/.test(line)).length,
    5,
  );
  assert.ok(lines.includes('• logs: FATAL: password authentication failed for user "checkout" (SQLSTATE 28P01)'));
  assert.ok(lines.includes('and 1 more in the console'));
  assert.ok(
    lines.includes(
      '• rollout_undo on Deployment staging/checkout-api: waits for approval until 2026-12-02T09:30:00.000Z',
    ),
  );
  assert.equal(lines.at(-1), 'Run run-7f3c2a');
});

test('a failed run says it failed and why', () => {
  const lines = readAll(renderCard('finished', { run: buildFailedRun() }).body);
  assert.equal(lines[0], 'Run failed: KubePodCrashLooping, CheckoutErrorRateHigh');
  assert.ok(lines.includes('kubewhy could not diagnose this run.'));
  assert.ok(lines.includes('the model API answered 529 (overloaded) five times; gave up after 3m'));
  assert.ok(!lines.some((line) => line.startsWith('Category:')));
});

test('an approval names each held action, its reason and its diff in monospace, and the expiry', () => {
  const { body } = renderCard('approval');
  const lines = readAll(body);
  assert.equal(lines[0], 'Approval needed: rollout_undo on Deployment staging/checkout-api');
  assert.match(
    lines[1] ?? '',
    /holds an action for bad-credentials: Deployment\/staging\/checkout-api until 2026-12-02T09:30:00.000Z/,
  );
  assert.ok(lines.includes('waits for approval until 2026-12-02T09:30:00.000Z'));
  const diff = body
    .filter((element) => element.inlines?.[0]?.fontType === 'Monospace')
    .map((element) => element.inlines?.[0]?.text);
  assert.deepEqual(diff, [
    'Deployment staging/checkout-api: pod template of revision 4 → that of revision 3 (rolled out as a new revision)',
    'app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password',
  ]);
});

test('a resolved notice names the alerts that resolved', () => {
  assert.equal(
    readAll(renderCard('resolved').body)[1],
    'The alerts of this run resolved: KubePodCrashLooping, CheckoutErrorRateHigh. It was diagnosed as bad-credentials: Deployment/staging/checkout-api.',
  );
});

test("what the run quotes is never read as markdown: a link in a pod's log stays text", () => {
  const run = buildDiagnosedRun();
  run.diagnosis!.summary = `[Click to approve](https://evil.example) ${'z'.repeat(5000)}`;
  run.diagnosis!.evidence = ['**urgent** [login](https://evil.example)'];
  const { body } = renderCard('finished', { run });
  const quoted = body
    .filter((element) => element.type === 'RichTextBlock')
    .map((element) => element.inlines?.[0]?.text ?? '');
  assert.ok(quoted[0]?.startsWith('[Click to approve](https://evil.example)'));
  assert.ok((quoted[0]?.length ?? 0) <= TEAMS_LIMITS.summary);
  assert.ok(quoted.includes('• **urgent** [login](https://evil.example)'));
  assert.ok(!body.some((element) => element.type === 'TextBlock' && /evil\.example/.test(element.text ?? '')));
});
