/**
 * `kubewhy notify test [--file FILE] [--destination NAME]...`: sends one test message to
 * each destination of the notifications file (default KUBEWHY_NOTIFICATIONS_FILE), once,
 * straight through its channel (not the outbox), and says what each receiver answered:
 * the way to learn that a webhook URL, a bot token or a channel is wrong before an
 * incident does. Exit 0 when every destination took its message, 1 when one did not, 2
 * on a usage or settings error.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import type { Notice } from '../notify/notice.ts';
import { loadNotifications, NotificationsConfigError } from '../notify/notify-config.ts';
import type { RunView } from '../runs/run-view.ts';

const USAGE = `usage: kubewhy notify test [--file FILE] [--destination NAME]...

Sends a test message to each destination of the notifications file (default:
KUBEWHY_NOTIFICATIONS_FILE), or to the ones named, and prints what each answered.
exit status: 0 every destination took it, 1 one did not, 2 a usage or settings error`;

/** How long one test message may take. */
const TEST_TIMEOUT_MS = 15_000;

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    (subcommand === undefined ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== 'test') {
    process.stderr.write(`kubewhy notify: unknown subcommand '${subcommand}' (it has test)\n\n${USAGE}\n`);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      file: { type: 'string' },
      destination: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let settings: ReturnType<typeof loadNotifications>;
  try {
    const { notifications } = loadConfig(
      undefined,
      values.file ? { overrides: { KUBEWHY_NOTIFICATIONS_FILE: values.file } } : {},
    );
    if (!notifications) {
      process.stderr.write(
        'kubewhy notify test: no notifications file: set KUBEWHY_NOTIFICATIONS_FILE or pass --file FILE\n',
      );
      return 2;
    }
    settings = loadNotifications(notifications.file, notifications);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof NotificationsConfigError) {
      process.stderr.write(`kubewhy notify test: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const unknown = values.destination.filter((name) => !settings.channels.some((channel) => channel.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `kubewhy notify test: no destination ${unknown.map((name) => `"${name}"`).join(', ')} (there are: ${settings.channels.map((channel) => channel.name).join(', ')})\n`,
    );
    return 2;
  }
  const channels =
    values.destination.length > 0
      ? settings.channels.filter((channel) => values.destination.includes(channel.name))
      : settings.channels;
  const notice = testNotice(new Date(), settings.consoleUrl);
  let failed = 0;
  for (const channel of channels) {
    const outcome = await channel.send({
      body: channel.render(notice),
      deliveryId: `${notice.run.id}/${channel.name}`,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    if (outcome.ok) {
      process.stdout.write(`${channel.name} (${channel.kind}): delivered\n`);
      continue;
    }
    failed++;
    const retry = outcome.retryable
      ? `the service would try again${outcome.retryAfterMs !== undefined ? ` in ${Math.ceil(outcome.retryAfterMs / 1000)} s` : ''}`
      : 'the service would give it up';
    process.stdout.write(`${channel.name} (${channel.kind}): not delivered: ${outcome.error} (${retry})\n`);
  }
  return failed > 0 ? 1 : 0;
}

/** A finished run that says what it is: no cluster was read, nothing was diagnosed. */
function testNotice(now: Date, consoleUrl: string | undefined): Notice {
  const id = `notify-test-${now.getTime()}`;
  const at = now.toISOString();
  const run: RunView = {
    id,
    status: 'completed',
    source: 'api',
    trigger: { kind: 'incident', text: 'kubewhy notify test' },
    rung: 'OBSERVE',
    createdAt: at,
    finishedAt: at,
    attempts: 1,
    diagnosis: {
      category: 'no-issue',
      summary:
        'A test message from `kubewhy notify test`: if you can read it, kubewhy can deliver to this destination. No cluster was read and nothing was diagnosed.',
      evidence: [`sent by kubewhy notify test from ${hostname()} at ${at}`],
      confidence: 'high',
      actions: [],
    },
    actions: [],
  };
  return { event: 'finished', run, at, ...(consoleUrl ? { runUrl: `${consoleUrl}/runs/${id}` } : {}) };
}
