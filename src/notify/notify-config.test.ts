import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadNotifications, NotificationsConfigError } from './notify-config.ts';

function folder(t: TestContext): string {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-notify-config-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function writeFile(directory: string, name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

const SLACK_TOKEN = 'xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1';

test('a file with every kind of destination builds one channel each, credentials read from files and the environment', (t) => {
  const directory = folder(t);
  const tokenFile = writeFile(directory, 'slack-token', `${SLACK_TOKEN}\n`);
  const path = writeFile(
    directory,
    'notifications.yaml',
    `consoleUrl: https://kubewhy.example.com/
destinations:
  - { name: oncall, type: slack-bot, channel: "#oncall", token: { file: ${tokenFile} } }
  - { name: team, type: slack-webhook, url: { env: TEAM_SLACK_URL } }
  - { name: platform, type: teams, url: "https://example.webhook.office.com/workflows/abc" }
  - { name: tickets, type: webhook, url: "https://tickets.example.com/hook", secret: { env: HOOK_SECRET }, timeoutSeconds: 3 }
routes:
  - { match: { namespaces: [prod], severities: [critical] }, to: [oncall, platform] }
  - { to: [team, tickets] }
`,
  );
  const settings = loadNotifications(path, {
    environment: {
      TEAM_SLACK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX',
      HOOK_SECRET: 'a-signing-secret-of-some-length',
    },
  });
  assert.deepEqual(
    settings.channels.map((channel) => [channel.name, channel.kind, channel.threads]),
    [
      ['oncall', 'slack-bot', true],
      ['team', 'slack-webhook', false],
      ['platform', 'teams', false],
      ['tickets', 'webhook', false],
    ],
  );
  assert.equal(settings.consoleUrl, 'https://kubewhy.example.com');
  assert.equal(settings.routes.length, 2);
  assert.deepEqual(settings.delivery, { backoffMs: 5000, backoffMaxMs: 300_000, maxAgeMs: 86_400_000 });
  // The channels hold their credentials; nothing of them shows when the settings are logged or serialised.
  assert.doesNotMatch(JSON.stringify(settings), /FGqddMF8t08v8N7Oq4i57vs1|XXXX|a-signing-secret/);
});

test('KUBEWHY_CONSOLE_URL wins over the file', (t) => {
  const directory = folder(t);
  const path = writeFile(
    directory,
    'n.yaml',
    'consoleUrl: https://old.example.com\ndestinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: [{ to: [a] }]\n',
  );
  assert.equal(
    loadNotifications(path, { environment: {}, consoleUrl: 'https://kubewhy.internal:8443' }).consoleUrl,
    'https://kubewhy.internal:8443',
  );
});

const mistakes: { name: string; file: string; environment?: Record<string, string>; message: RegExp }[] = [
  {
    name: 'a route naming no destination',
    file: 'destinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: [{ to: [b] }]\n',
    message: /routes\.0\.to names "b", which is not a destination \(there are: a\)/,
  },
  {
    name: 'a destination defined twice',
    file: 'destinations: [{ name: a, type: teams, url: "https://x.example.com/h" }, { name: a, type: teams, url: "https://y.example.com/h" }]\nroutes: [{ to: [a] }]\n',
    message: /destination "a" is defined twice/,
  },
  {
    name: 'an unknown type',
    file: 'destinations: [{ name: a, type: pager, url: "https://x.example.com/h" }]\nroutes: [{ to: [a] }]\n',
    message: /destinations\.0\.type/,
  },
  {
    name: 'a webhook without its signing secret',
    file: 'destinations: [{ name: a, type: webhook, url: "https://x.example.com/h" }]\nroutes: [{ to: [a] }]\n',
    message: /destinations\.0\.secret/,
  },
  {
    name: 'an environment variable that is not set',
    file: 'destinations: [{ name: a, type: slack-webhook, url: { env: NOPE } }]\nroutes: [{ to: [a] }]\n',
    message: /destinations\.0\.url reads the environment variable NOPE, which is not set/,
  },
  {
    name: 'a credential file that is missing',
    file: 'destinations: [{ name: a, type: slack-bot, channel: "#x", token: { file: /nonexistent/token } }]\nroutes: [{ to: [a] }]\n',
    message: /destinations\.0\.token reads \/nonexistent\/token: ENOENT/,
  },
  {
    name: 'a URL that is no URL',
    file: 'destinations: [{ name: a, type: teams, url: "not a url" }]\nroutes: [{ to: [a] }]\n',
    message: /destination "a": its url is not a URL/,
  },
  {
    name: 'a misspelt field',
    file: 'destinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: [{ match: { namespace: [prod] }, to: [a] }]\n',
    message: /routes\.0\.match/,
  },
  {
    name: 'no routes',
    file: 'destinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: []\n',
    message: /routes/,
  },
  {
    name: 'a retry sooner than a second',
    file: 'delivery: { backoffSeconds: 0.2 }\ndestinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: [{ to: [a] }]\n',
    message: /delivery\.backoffSeconds/,
  },
  {
    name: 'a longest wait shorter than the first',
    file: 'delivery: { backoffSeconds: 60, backoffMaxSeconds: 10 }\ndestinations: [{ name: a, type: teams, url: "https://x.example.com/h" }]\nroutes: [{ to: [a] }]\n',
    message: /delivery\.backoffMaxSeconds: backoffMaxSeconds must be at least backoffSeconds/,
  },
  { name: 'a file that is not YAML', file: 'destinations: [\n', message: /is not YAML or JSON/ },
];

for (const mistake of mistakes) {
  test(`the start stops on ${mistake.name}, naming the file and the field`, (t) => {
    const directory = folder(t);
    const path = writeFile(directory, 'notifications.yaml', mistake.file);
    assert.throws(
      () => loadNotifications(path, { environment: mistake.environment ?? {} }),
      (error: unknown) =>
        error instanceof NotificationsConfigError &&
        mistake.message.test(error.message) &&
        error.message.includes(path),
    );
  });
}

test('an unreadable file says which', () => {
  assert.throws(
    () => loadNotifications('/nonexistent/notifications.yaml', { environment: {} }),
    /cannot read the notifications file \/nonexistent\/notifications\.yaml/,
  );
});
