/**
 * `kubewhy capture --namespace NS [--kubeconfig FILE] [--context C] [--since 2h] [--name NAME]
 * [--incident TEXT] [--force] OUT`: snapshots one namespace of a live cluster into a scenario
 * folder (SCENARIOS.md) that `kubewhy diagnose --scenario OUT` and `kubewhy mock-cluster`
 * replay. Everything written passes through the redactor; Secrets are names and keys only.
 * A kubeconfig that cannot be read, a namespace that does not exist or an OUT that is not
 * empty is one line on stderr and exit code 2.
 */
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { createKubeCluster, kubeconfigSource } from '../cluster/kube-adapter.ts';
import { describeCluster, identifyCluster, KubeconfigError } from '../cluster/kubeconfig.ts';
import { captureNamespace } from '../capture/capture.ts';
import { CaptureError } from '../capture/capture-error.ts';
import { parseDuration } from '../capture/parse-duration.ts';
import { DEFAULT_LOG_LIMITS } from '../capture/read-logs.ts';
import { checkOutput, writeScenario } from '../capture/write-scenario.ts';
import { chooseClusterTarget } from './cluster-target.ts';

const USAGE = `usage: kubewhy capture --namespace NS [--kubeconfig FILE] [--context NAME] [--since 2h]
                       [--name NAME] [--incident TEXT] [--tail N] [--force] OUT

  Snapshots one namespace into the scenario folder OUT: its workloads, pods, services,
  endpoints, configmaps (values redacted), secrets (names and keys only, never values),
  PVCs, HPAs, network policies, quotas, limit ranges, events, rollout history, the nodes,
  and the current and previous logs of its pods in trouble, every one redacted.
  Replay it with: kubewhy diagnose --scenario OUT

  --namespace NS      the namespace to capture (required)
  --kubeconfig FILE   the kubeconfig (default: KUBECONFIG, else ~/.kube/config)
  --context NAME      a context of that kubeconfig (default: its current context)
  --since DURATION    how far back events reach: 90s, 30m, 2h, 1d (default 2h)
  --name NAME         the scenario's name (default: OUT's folder name, kebab-cased)
  --incident TEXT     the incident text (default: written from what is failing)
  --tail N            the last N lines of each log (default ${DEFAULT_LOG_LIMITS.tailLines})
  --force             write into OUT even if it is not empty (its scenario is replaced)`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      since: { type: 'string', default: '2h' },
      name: { type: 'string' },
      incident: { type: 'string' },
      tail: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const out = positionals[0];
  if (!values.namespace || out === undefined || positionals.length > 1) {
    process.stderr.write(
      `kubewhy capture: ${!values.namespace ? '--namespace is required' : out === undefined ? 'say where to write the scenario: OUT' : 'only one OUT folder'}\n\n${USAGE}\n`,
    );
    return 2;
  }
  try {
    return await capture({
      ...values,
      namespace: values.namespace,
      out: resolve(out),
      outName: basename(resolve(out)),
    });
  } catch (error) {
    if (!(error instanceof CaptureError) && !(error instanceof KubeconfigError)) throw error;
    process.stderr.write(`kubewhy capture: ${error.message}\n`);
    return 2;
  }
}

async function capture(input: {
  namespace: string;
  out: string;
  outName: string;
  kubeconfig?: string;
  context?: string;
  since: string;
  name?: string;
  incident?: string;
  tail?: string;
  force: boolean;
}): Promise<number> {
  const sinceMs = parseDuration(input.since);
  const tailLines = input.tail === undefined ? DEFAULT_LOG_LIMITS.tailLines : Number(input.tail);
  if (!Number.isInteger(tailLines) || tailLines < 1)
    throw new CaptureError(`--tail expects a positive number of lines, got "${input.tail}"`);
  const name = input.name ?? (kebabCase(input.outName) || `${input.namespace}-capture`);
  await checkOutput(input.out, input.force);
  const target = chooseClusterTarget({ kubeconfig: input.kubeconfig, context: input.context, config: loadConfig() });
  if ('refusal' in target) throw new CaptureError(target.refusal);
  if (target.kind === 'scenario')
    throw new CaptureError(
      'KUBEWHY_CLUSTER=mock serves a scenario already: capture reads a live cluster (--kubeconfig FILE, KUBECONFIG or ~/.kube/config)',
    );
  const source = describeCluster(identifyCluster(kubeconfigSource(target.options)));
  const cluster = createKubeCluster(target.options);
  const snapshot = await captureNamespace(cluster, {
    namespace: input.namespace,
    sinceMs,
    name,
    source,
    logLimits: { ...DEFAULT_LOG_LIMITS, tailLines },
    ...(input.incident ? { incident: input.incident } : {}),
  });
  await writeScenario(input.out, snapshot, { force: input.force });
  for (const warning of snapshot.warnings) process.stderr.write(`kubewhy capture: warning: ${warning}\n`);
  process.stdout.write(
    [
      `captured namespace ${input.namespace} from ${source}: ${snapshot.objects.length} objects, ${snapshot.logs.length} logs, redacted`,
      `wrote ${input.out} (scenario "${name}", now ${snapshot.meta.now})`,
      `incident: ${snapshot.meta.trigger.incident}`,
      `replay it: kubewhy diagnose --scenario ${input.out}`,
      '',
    ].join('\n'),
  );
  return 0;
}

function kebabCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
