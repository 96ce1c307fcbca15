/**
 * `kubewhy diagnose`: one run from the terminal, against a scenario served by an
 * in-process mock cluster or a real cluster through a kubeconfig. Prints the rung, the
 * diagnosis and the trail of tool calls (or the whole run as JSON); the run's audit
 * events go to the SQLite store in the data folder.
 *
 * What only some runs need is imported when they need it (the mock cluster for a
 * scenario, the YAML reader for --alert, a logger for Claude): each start loads only
 * the code of the run it makes.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { createModel } from '../agent/create-model.ts';
import { runAgent, type RunOutcome } from '../agent/loop.ts';
import type { Model } from '../agent/model.ts';
import { auditFor } from '../agent/run-audit.ts';
import type { Trigger } from '../agent/trigger.ts';
import { createAuditStore } from '../audit/audit-store.ts';
import { createKubeCluster } from '../cluster/kube-adapter.ts';
import { effectiveRung, RUNGS, type LadderPolicy, type Rung } from '../gate/rung.ts';
import { createTerminalApprovalBroker } from '../gate/terminal-approvals.ts';
import { openDatabase } from '../store/database.ts';
import { configuredTools, createToolRegistry } from '../tools/registry.ts';
import type { LoadedScenario } from '../../mock-cluster/index.ts';
import { formatRun } from './format-run.ts';

const USAGE = `usage: kubewhy diagnose [--scenario DIR [--background NAME] | --kubeconfig FILE [--context NAME]] [--alert FILE]
                        [--rung OBSERVE|ACT] [--act-namespace NS]... [--namespace NS] [--json] ["incident text"]

  --scenario DIR       serve this incident snapshot from an in-process mock cluster
  --background NAME    place the scenario inside a healthy background cluster (eks, aks, kubeadm)
  --kubeconfig FILE    diagnose a real cluster (default: the settings, else the demo scenario)
  --alert FILE         an alert (labels, annotations) or an Alertmanager webhook payload, JSON or YAML
  --rung RUNG          OBSERVE (default): writes are only proposed; ACT: writes wait for your approval
  --act-namespace NS   allow ACT in this namespace (repeatable; KUBEWHY_ACT_NAMESPACES also counts)
  --namespace NS       the namespace an incident text is about
  --json               print the run as JSON
Without text or --alert, a scenario's own trigger is used.`;

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
  const config = loadConfig();
  const policy: LadderPolicy = {
    actNamespaces: [...config.policy.actNamespaces, ...values['act-namespace']],
    ...(config.policy.allowedNamespaces ? { allowedNamespaces: config.policy.allowedNamespaces } : {}),
  };
  const scenarioDir = values.scenario ?? (values.kubeconfig || config.cluster.mode !== 'mock' ? undefined : config.cluster.scenarioDir);
  if (values.background !== undefined && !scenarioDir) {
    process.stderr.write('kubewhy diagnose: --background needs a scenario to place inside it (--scenario DIR)\n');
    return 2;
  }
  const scenario = scenarioDir ? await loadScenarioFrom(scenarioDir, values.background) : undefined;

  const trigger = await chooseTrigger({ text: positionals.join(' ').trim(), namespace: values.namespace, alertFile: values.alert, scenario });
  if (!trigger) {
    process.stderr.write(`kubewhy diagnose: say what to diagnose: incident text or --alert FILE\n\n${USAGE}\n`);
    return 2;
  }

  const rung = requested as Rung;
  const namespace = trigger.kind === 'alert' ? trigger.alert.labels.namespace : trigger.namespace;
  const cap = effectiveRung({ requested: rung, policy, namespace });
  const allowed = policy.actNamespaces.length > 0 ? policy.actNamespaces.join(', ') : 'nowhere';
  const rungLine = `Rung: ${rung}${namespace ? ` (in ${namespace}: ${cap})` : ''}; ACT allowed: ${allowed}. Writes ${rung === 'ACT' ? 'wait for your approval where ACT is allowed, and are only proposed elsewhere' : 'are only proposed'}.`;

  const database = openDatabase(join(config.dataDir, 'kubewhy.db'));
  const runId = randomUUID();
  const auditStore = createAuditStore(database);
  const audit = auditFor(auditStore, runId);
  audit.record('run-created', { trigger, rung, source: 'cli', ...(scenario ? { scenario: scenario.name } : {}) });
  const model = await createModelFor(config);
  const approvals = createTerminalApprovalBroker({ input: process.stdin, output: process.stderr });
  const limits = { maxSteps: config.limits.maxSteps, tokenBudget: config.limits.tokenBudget, timeoutMs: config.limits.runTimeoutMs, approvalTtlMs: config.limits.approvalTtlMs, toolOutputBytes: config.limits.toolOutputBytes };

  let auditHead: { seq: number; hash: string } | undefined;
  let outcome: RunOutcome;
  const started = performance.now();
  try {
    if (scenario) {
      const { runOnScenario } = await import('../eval/run-scenario.ts');
      ({ outcome } = await runOnScenario({ scenario, trigger, model, rung, policy, approvals, audit, runId, limits }));
    } else {
      const cluster = createKubeCluster({
        ...(values.kubeconfig ? { kubeconfigPath: values.kubeconfig } : config.cluster.mode === 'kubeconfig' && config.cluster.kubeconfigPath ? { kubeconfigPath: config.cluster.kubeconfigPath } : {}),
        ...(values.context ? { context: values.context } : {}),
        ...(config.cluster.mode === 'in-cluster' ? { inCluster: true } : {}),
        requestTimeoutMs: config.cluster.timeoutMs,
      });
      outcome = await runAgent({ runId, trigger, rung, model, registry: createToolRegistry(configuredTools({ secretKeys: config.policy.secretKeys })), cluster, policy, approvals, audit, limits });
    }
  } finally {
    auditHead = auditStore.head(runId);
    database.close();
  }
  const durationMs = performance.now() - started;
  if (values.json) process.stdout.write(`${JSON.stringify({ runId, rung, model: model.name, ...outcome, durationMs: Math.round(durationMs) }, null, 2)}\n`);
  else {
    const head = auditHead ? ` (${auditHead.seq} events, head ${auditHead.hash.slice(0, 16)}…)` : '';
    process.stdout.write(formatRun({ runId, outcome, rungLine, durationMs }) + `Audit${head}: kubewhy audit verify --run ${runId}\n`);
  }
  return outcome.status === 'completed' ? 0 : 1;
}

/** The incident text, else the alert in the file, else the scenario's own trigger. */
async function chooseTrigger(input: { text: string; namespace: string | undefined; alertFile: string | undefined; scenario: LoadedScenario | undefined }): Promise<Trigger | undefined> {
  if (input.text) return { kind: 'incident', text: input.text, ...(input.namespace ? { namespace: input.namespace } : {}) };
  if (input.alertFile) {
    const { readAlertFile } = await import('./read-alert.ts');
    return readAlertFile(input.alertFile);
  }
  if (!input.scenario) return undefined;
  const { scenarioTriggers } = await import('../eval/run-scenario.ts');
  return scenarioTriggers(input.scenario)[0]?.trigger;
}

async function loadScenarioFrom(directory: string, background: string | undefined): Promise<LoadedScenario> {
  const { loadScenario } = await import('../../mock-cluster/index.ts');
  return loadScenario(directory, background === undefined ? {} : { background });
}

/**
 * stdout holds the diagnosis: the SDK's warnings go to stderr, as JSON log lines. The
 * offline engine logs nothing, so it is created without loading a logger.
 */
async function createModelFor(config: Config): Promise<Model> {
  if (config.model.provider === 'offline') return createModel(config.model);
  const [{ pino }, { createLogger }] = await Promise.all([import('pino'), import('../server/logger.ts')]);
  return createModel(config.model, { logger: createLogger({ level: config.logLevel, destination: pino.destination(2) }) });
}
