/**
 * `kubewhy notify test`: one message to each destination of the notifications file, and
 * what each receiver answered, so a wrong token or URL shows before an incident does.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeSlack, startSignedReceiver } from './helpers/notify-receivers.ts';
import { runKubewhy } from './helpers/run-kubewhy.ts';

const SLACK_TOKEN = 'xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1';

test('each destination gets a test message; one that refuses it is named with its answer, and the exit code says so', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-notify-cli-'));
  const slack = await startFakeSlack({ token: SLACK_TOKEN, channels: ['C0ONCALL'] });
  const hook = await startSignedReceiver({ secret: 'the-right-secret-0123456789' });
  t.after(() => Promise.all([slack.close(), hook.close(), rm(directory, { recursive: true, force: true })]));
  const file = join(directory, 'notifications.yaml');
  await writeFile(
    file,
    `consoleUrl: https://kubewhy.example.com
destinations:
  - { name: oncall, type: slack-bot, channel: C0ONCALL, apiUrl: "${slack.apiUrl}", token: { env: SLACK_TOKEN } }
  - { name: tickets, type: webhook, url: "${hook.url}", secret: "a-wrong-secret-0123456789" }
routes: [{ to: [oncall, tickets] }]
`,
  );
  const env = { PATH: process.env.PATH ?? '', HOME: directory, KUBEWHY_NOTIFICATIONS_FILE: file, SLACK_TOKEN };

  const both = await runKubewhy(['notify', 'test'], { env });
  assert.equal(both.code, 1, both.stderr);
  assert.match(both.stdout, /^oncall \(slack-bot\): delivered$/m);
  assert.match(both.stdout, /^tickets \(webhook\): not delivered: .*401.* \(the service would give it up\)$/m);
  assert.equal(slack.received.length, 1);
  assert.match(slack.received[0]!.text ?? '', /no-issue/);
  assert.ok(!both.stdout.includes(SLACK_TOKEN));

  const one = await runKubewhy(['notify', 'test', '--destination', 'oncall'], { env });
  assert.equal(one.code, 0, one.stdout + one.stderr);
  assert.equal(slack.received.length, 2);

  const unknown = await runKubewhy(['notify', 'test', '--destination', 'pager'], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no destination "pager" \(there are: oncall, tickets\)/);

  const none = await runKubewhy(['notify', 'test'], { env: { PATH: env.PATH, HOME: directory } });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no notifications file: set KUBEWHY_NOTIFICATIONS_FILE or pass --file FILE/);
});
