/**
 * What `helm install` prints (NOTES.txt) tells an SRE how to wire Alertmanager: a receiver
 * snippet that Alertmanager itself accepts, with the bearer token read from a file.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import {
  chartDirectory,
  runCommand,
  runHelm,
  writeValuesFile,
  type ChartValues,
} from './fixtures/helm-support/helm.ts';
import { findSystemTool } from './fixtures/helm-support/system-tools.ts';

interface ReceiverSnippet {
  receivers: {
    name: string;
    webhook_configs: { url: string; send_resolved: boolean; http_config: { authorization: Record<string, string> } }[];
  }[];
  route: { routes: { receiver: string; continue: boolean }[] };
}

/** `helm install --dry-run=client` renders NOTES.txt without a cluster. */
async function renderNotes(values: ChartValues = {}): Promise<string> {
  const valuesFile = await writeValuesFile(values);
  const result = await runHelm([
    'install',
    'kubewhy',
    chartDirectory,
    '--namespace',
    'kubewhy',
    '--dry-run=client',
    '-f',
    valuesFile,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const notes = result.stdout.split('\nNOTES:\n')[1];
  assert.ok(notes, 'helm printed no NOTES');
  return notes;
}

/** The YAML block of the notes: from "receivers:" to the first blank line. */
function extractReceiverSnippet(notes: string): ReceiverSnippet {
  const start = notes.indexOf('\nreceivers:\n');
  assert.ok(start >= 0, 'the notes have no receivers: block');
  const end = notes.indexOf('\n\n', start + 1);
  return parse(notes.slice(start + 1, end)) as ReceiverSnippet;
}

test('the notes print a webhook receiver with the service URL, send_resolved and a bearer token file', async () => {
  const snippet = extractReceiverSnippet(await renderNotes());
  const [receiver] = snippet.receivers;
  assert.equal(receiver?.name, 'kubewhy');
  const [webhook] = receiver.webhook_configs;
  assert.equal(webhook?.url, 'http://kubewhy.kubewhy.svc:8080/v1/alerts/alertmanager');
  assert.equal(webhook.send_resolved, true);
  assert.deepEqual(webhook.http_config.authorization, {
    type: 'Bearer',
    credentials_file: '/etc/alertmanager/secrets/kubewhy-ingest/token',
  });
  assert.deepEqual(
    snippet.route.routes.map((route) => [route.receiver, route.continue]),
    [['kubewhy', true]],
  );
});

test('Alertmanager accepts the printed receiver and route (amtool check-config)', async () => {
  const snippet = extractReceiverSnippet(await renderNotes());
  const config = {
    route: { receiver: 'on-call', routes: snippet.route.routes },
    receivers: [{ name: 'on-call' }, ...snippet.receivers],
  };
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-notes-'));
  try {
    const path = join(directory, 'alertmanager.yml');
    await writeFile(path, stringify(config));
    const result = await runCommand(findSystemTool('amtool'), ['check-config', path]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('the notes say how to read the token from the chart Secret, and never print a token', async () => {
  const token = 'ingest-token-never-printed-0000';
  const notes = await renderNotes({ auth: { tokens: { ingest: [token] } } });
  assert.match(notes, /kubectl -n kubewhy get secret kubewhy-tokens -o jsonpath='\{\.data\.ingest\}'/);
  assert.ok(!notes.includes(token));
  assert.ok(!notes.includes(Buffer.from(token).toString('base64')));
});

test('the notes follow the release name, namespace and port', async () => {
  const valuesFile = await writeValuesFile({ service: { port: 9090 } });
  const result = await runHelm([
    'install',
    'why',
    chartDirectory,
    '--namespace',
    'ops',
    '--dry-run=client',
    '-f',
    valuesFile,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const snippet = extractReceiverSnippet(result.stdout.split('\nNOTES:\n')[1] ?? '');
  assert.equal(snippet.receivers[0]?.webhook_configs[0]?.url, 'http://why-kubewhy.ops.svc:9090/v1/alerts/alertmanager');
});

test('the notes tell whether ACT is on and where', async () => {
  assert.match(await renderNotes(), /ACT: +off: write actions are only proposed/);
  const notes = await renderNotes({ act: { enabled: true, namespaces: ['staging', 'shop'] } });
  assert.match(notes, /ACT: +approved actions may run in staging, shop/);
  assert.match(notes, /\/v1\/runs\/RUN_ID\/actions\/ACTION_ID\/approve/);
});
