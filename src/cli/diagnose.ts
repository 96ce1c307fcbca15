/**
 * `kubewhy diagnose`: one run from the terminal, against the cluster kubectl would read
 * (or a scenario served by an in-process mock cluster, when asked). Says on stderr what it
 * does as it works; prints the cluster, the rung, the diagnosis and the trail of tool calls
 * (or the whole run as JSON); the run's audit events go to the SQLite store in the data folder.
 *
 * What only some runs need is imported when they need it (the mock cluster for a
 * scenario, the YAML reader for --alert, a logger for Claude): each start loads only
 * the code of the run it makes.
 */
import { runLimitsOf } from '../agent/run-limits.ts';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { connect, createCommandModel } from '../app/runtime.ts';
import { runFinishedOf } from '../runs/lifecycle.ts';
import { runAgent, type RunOutcome } from '../agent/loop.ts';
import { auditFor } from '../agent/run-audit.ts';
import type { Trigger } from '../agent/trigger.ts';
import { createAuditStore } from '../audit/audit-store.ts';
import { asAsync } from '../store/sqlite-stores.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { describeCluster } from '../cluster/kubeconfig.ts';
import { effectiveRung, RUNGS, type LadderPolicy, type Rung } from '../gate/rung.ts';
import { createTerminalApprovalBroker } from '../gate/terminal-approvals.ts';
import { openDatabase } from '../store/database.ts';
import { toolRegistryFor } from '../tools/registry.ts';
import type { LoadedScenario } from '../../mock-cluster/index.ts';
import { DEMO_SCENARIO_DIR } from '../package-paths.ts';
import { formatRun } from './format-run.ts';
import { commandForm } from './invocation.ts';
import { chooseClusterTarget } from './cluster-target.ts';
import { createProgress } from './progress.ts';

/** The model's timeout per call at the terminal, unless KUBEWHY_MODEL_TIMEOUT_SECONDS is set. */
const CLI_MODEL_TIMEOUT_SECONDS = 45;

const USAGE = `usage: kubewhy diagnose [--kubeconfig FILE] [--context NAME] | --scenario DIR [--background NAME]]
                        [--alert FILE] [--rung OBSERVE|ACT] [--act-namespace NS]... [--namespace NS]
                        [--json] [--quiet] ["incident text"]

Reads the cluster kubectl would read: --kubeconfig, else KUBECONFIG, else ~/.kube/config, at
its current context (or --context); inside a pod, its service account. The answer says which.

  --kubeconfig FILE    the kubeconfig to read (a ':'-separated list merges, as KUBECONFIG does)
  --context NAME       a context of that kubeconfig (default: its current context)
  --scenario DIR       diagnose an incident snapshot on an embedded mock cluster instead
                       (the demo: ${DEMO_SCENARIO_DIR}; KUBEWHY_CLUSTER=mock serves it too)
  --background NAME    place the scenario inside a healthy background cluster (eks, aks, kubeadm)
  --alert FILE         an alert (labels, annotations) or an Alertmanager webhook payload, JSON or YAML
  --rung RUNG          OBSERVE (default): writes are only proposed; ACT: writes wait for your approval
  --act-namespace NS   allow ACT in this namespace (repeatable; KUBEWHY_ACT_NAMESPACES also counts)
  --namespace NS       the namespace an incident text is about
  --json               print the run as JSON (and nothing on stderr while it works)
  --quiet              print no progress on stderr
Without text or --alert, a scenario's own trigger is used. Claude diagnoses when
ANTHROPIC_API_KEY is set (here each call times out after ${CLI_MODEL_TIMEOUT_SECONDS} s unless
KUBEWHY_MODEL_TIMEOUT_SECONDS says otherwise); KUBEWHY_MODEL=offline uses the offline engine.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      scenario: { type: 'string' },
      background: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      alert: { type: 'string' },
      rung: { type: 'string', default: 'OBSERVE' },
      'act-namespace': { type: 'string', multiple: true, default: [] },
      namespace: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const requested = values.rung.toUpperCase();
  if (!RUNGS.includes(requested as Rung)) {
    process.stderr.write(`kubewhy diagnose: --rung must be OBSERVE or ACT, not "${values.rung}"\n`);
    return 2;
  }
  // A person at a terminal would rather hear "the model does not answer" in a minute than in eight.
  const config = loadConfig(undefined, {
    defaults: { KUBEWHY_MODEL_TIMEOUT_SECONDS: String(CLI_MODEL_TIMEOUT_SECONDS), KUBEWHY_MODEL_MAX_RETRIES: '1' },
  });
  const policy: LadderPolicy = {
    actNamespaces: [...config.policy.actNamespaces, ...values['act-namespace']],
    ...(config.policy.allowedNamespaces ? { allowedNamespaces: config.policy.allowedNamespaces } : {}),
  };
  const target = chooseClusterTarget({
    scenario: values.scenario,
    kubeconfig: values.kubeconfig,
    context: values.context,
    config,
  });
  if ('refusal' in target) {
    process.stderr.write(`kubewhy diagnose: ${target.refusal}\n`);
    return 2;
  }
  if (values.background !== undefined && target.kind !== 'scenario') {
    process.stderr.write('kubewhy diagnose: --background needs a scenario to place inside it (--scenario DIR)\n');
    return 2;
  }
  const scenario = target.kind === 'scenario' ? await loadScenarioFrom(target, values.background) : undefined;

  const trigger = await chooseTrigger({
    text: positionals.join(' ').trim(),
    namespace: values.namespace,
    alertFile: values.alert,
    scenario,
  });
  if (!trigger) {
    process.stderr.write(`kubewhy diagnose: say what to diagnose: incident text or --alert FILE\n\n${USAGE}\n`);
    return 2;
  }

  const rung = requested as Rung;
  const namespace = trigger.kind === 'alert' ? trigger.alert.labels.namespace : trigger.namespace;
  const cap = effectiveRung({ requested: rung, policy, namespace });
  const allowed = policy.actNamespaces.length > 0 ? policy.actNamespaces.join(', ') : 'nowhere';
  const rungLine = `Rung: ${rung}${namespace ? ` (in ${namespace}: ${cap})` : ''}; ACT allowed: ${allowed}. Writes ${rung === 'ACT' ? 'wait for your approval where ACT is allowed, and are only proposed elsewhere' : 'are only proposed'}.`;
  const progress = createProgress({ output: process.stderr, quiet: values.json || values.quiet });

  const connection = await connect(target, {
    requestTimeoutMs: config.cluster.timeoutMs,
    ...(scenario ? { scenario } : {}),
  });
  try {
    const clusterLine = `Cluster: ${describeCluster(connection.identity)}`;
    progress.say(`Reading ${describeCluster(connection.identity)}`);
    const reachable = await checkReachable(connection.cluster, namespace);
    if (!reachable.ok) {
      process.stderr.write(
        `kubewhy diagnose: cannot read the cluster (${describeCluster(connection.identity)}): ${reachable.message}\n`,
      );
      return 1;
    }
    const model = progress.watchModel(await createCommandModel(config));
    progress.say(`Diagnosing with ${model.name === 'offline' ? 'the offline engine' : model.name}…`);

    const database = openDatabase(join(config.dataDir, 'kubewhy.db'));
    const runId = randomUUID();
    const auditStore = createAuditStore(database);
    const audit = auditFor(asAsync(auditStore), runId);
    audit.record('run-created', {
      trigger,
      rung,
      source: 'cli',
      cluster: connection.identity,
      ...(scenario ? { scenario: scenario.name } : {}),
    });
    const approvals = createTerminalApprovalBroker({ input: process.stdin, output: process.stderr });
    const limits = runLimitsOf(config.limits);
    const registry = toolRegistryFor({ scenario: scenario !== undefined, secretKeys: config.policy.secretKeys });

    let auditHead: { seq: number; hash: string } | undefined;
    let outcome: RunOutcome;
    const started = performance.now();
    try {
      outcome = await runAgent({
        runId,
        trigger,
        rung,
        model,
        registry,
        cluster: connection.cluster,
        policy,
        approvals,
        audit,
        limits,
        observer: progress.observer,
      });
      // The run ends here: its chain's last event, as the service's runs end (runs/lifecycle.ts).
      audit.record('run-finished', { ...runFinishedOf(outcome) });
    } finally {
      await audit.flush().finally(() => {
        auditHead = auditStore.head(runId);
        database.close();
      });
    }
    const durationMs = performance.now() - started;
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ runId, rung, model: model.name, cluster: connection.identity, ...outcome, durationMs: Math.round(durationMs) }, null, 2)}\n`,
      );
    } else {
      const head = auditHead ? ` (${auditHead.seq} events, head ${auditHead.hash.slice(0, 16)}…)` : '';
      process.stdout.write(
        formatRun({ runId, outcome, rungLine: `${clusterLine}\n${rungLine}`, durationMs }) +
          `Audit${head}: ${commandForm()} audit verify --run ${runId}\n`,
      );
    }
    if (outcome.status !== 'completed' && outcome.reason?.startsWith('model error'))
      process.stderr.write(`kubewhy diagnose: ${modelFailureHint(config)}\n`);
    return outcome.status === 'completed' ? 0 : 1;
  } finally {
    await connection.close();
  }
}

/**
 * One read before the run: an API server that cannot be reached is said at once, with its
 * address, rather than as a diagnosis whose every tool failed. Any answer (a 403 or 404
 * included) means it is there.
 */
async function checkReachable(
  cluster: Cluster,
  namespace: string | undefined,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const result = await cluster.get('Namespace', { name: namespace ?? 'default' });
  if (result.ok || (result.error.kind !== 'unavailable' && result.error.kind !== 'timeout')) return { ok: true };
  return { ok: false, message: result.error.message };
}

function modelFailureHint(config: Config): string {
  const { endpoint, settings } = describeModelEndpoint(config.model);
  return `the model at ${endpoint} did not answer. Check ${settings} and the network, or diagnose with the offline engine: KUBEWHY_MODEL=offline`;
}

/** Where the model is reached, and the settings that say so, for a person whose model does not answer. */
function describeModelEndpoint(model: Config['model']): { endpoint: string; settings: string } {
  switch (model.provider) {
    case 'anthropic':
      return { endpoint: model.baseUrl ?? 'the Anthropic API', settings: 'ANTHROPIC_BASE_URL' };
    case 'bedrock':
      return {
        endpoint: model.baseUrl ?? `Amazon Bedrock in ${model.region}`,
        settings: 'AWS_REGION, the AWS credentials and KUBEWHY_MODEL_BASE_URL',
      };
    case 'vertex':
      return {
        endpoint: model.baseUrl ?? `Vertex AI in ${model.region} (project ${model.projectId})`,
        settings: 'CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, the Google credentials and KUBEWHY_MODEL_BASE_URL',
      };
    case 'openai':
      return model.azure
        ? { endpoint: model.azure.endpoint, settings: 'AZURE_OPENAI_ENDPOINT' }
        : { endpoint: model.baseUrl ?? 'the OpenAI API', settings: 'OPENAI_BASE_URL' };
    case 'offline':
      return { endpoint: 'the offline engine', settings: 'KUBEWHY_MODEL' };
  }
}

/** The incident text, else the alert in the file, else the scenario's own trigger. */
async function chooseTrigger(input: {
  text: string;
  namespace: string | undefined;
  alertFile: string | undefined;
  scenario: LoadedScenario | undefined;
}): Promise<Trigger | undefined> {
  if (input.text)
    return { kind: 'incident', text: input.text, ...(input.namespace ? { namespace: input.namespace } : {}) };
  if (input.alertFile) {
    const { readAlertFile } = await import('./read-alert.ts');
    return readAlertFile(input.alertFile);
  }
  if (!input.scenario) return undefined;
  const { scenarioTriggers } = await import('../eval/run-scenario.ts');
  return scenarioTriggers(input.scenario)[0]?.trigger;
}

async function loadScenarioFrom(
  target: { directory: string; from: string },
  background: string | undefined,
): Promise<LoadedScenario> {
  const { loadScenario, ScenarioError } = await import('../../mock-cluster/index.ts');
  return loadScenario(target.directory, background === undefined ? {} : { background }).catch((error: unknown) => {
    throw error instanceof ScenarioError ? new ScenarioError({ file: target.from }, error.message) : error;
  });
}
