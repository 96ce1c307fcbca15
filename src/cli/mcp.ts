/**
 * `kubewhy mcp`: kubewhy's tools as an MCP server over stdio, for an IDE's assistant or
 * another agent started on this machine. The cluster is picked as `kubewhy diagnose` picks
 * it (`--kubeconfig`, `--context`, `--scenario`, KUBEWHY_CLUSTER=mock), the model from the
 * settings (the offline engine without an API key), and the runs' audit goes to the SQLite
 * store in the data folder, as `diagnose` writes it.
 *
 * stdout carries MCP messages only; anything said goes to stderr. Over stdio there is no
 * person to approve anything and no API to do it through: write tools are only proposed,
 * never held or run. `diagnose` runs the agent in this process, at OBSERVE.
 */
import { runLimitsOf } from '../agent/run-limits.ts';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import packageJson from '../../package.json' with { type: 'json' };
import { connect, createCommandModel } from '../app/runtime.ts';
import { runAgent } from '../agent/loop.ts';
import { auditFor } from '../agent/run-audit.ts';
import type { Trigger } from '../agent/trigger.ts';
import { createAuditStore } from '../audit/audit-store.ts';
import { asAsync } from '../store/sqlite-stores.ts';
import { describeCluster } from '../cluster/kubeconfig.ts';
import { loadConfig } from '../config.ts';
import type { LadderPolicy } from '../gate/rung.ts';
import { createMcpServer, DIAGNOSE_WAIT_MS, type DiagnoseAnswer } from '../mcp/server.ts';
import { createMcpSession } from '../mcp/session.ts';
import { openDatabase } from '../store/database.ts';
import { toolRegistryFor } from '../tools/registry.ts';
import { chooseClusterTarget } from './cluster-target.ts';
import { commandForm } from './invocation.ts';

const USAGE = `usage: kubewhy mcp [--kubeconfig FILE] [--context NAME] | [--scenario DIR]

Serves kubewhy's tools to an MCP client over stdio (stdout: MCP messages only; logs: stderr).
Read tools and diagnose run; write tools are only recorded as proposals, never executed.
The cluster is picked as kubewhy diagnose picks it:
  --kubeconfig FILE    the kubeconfig to read
  --context NAME       a context of that kubeconfig (default: its current context)
  --scenario DIR       an incident snapshot on an embedded mock cluster (KUBEWHY_CLUSTER=mock serves one too)
Client configuration: {"mcpServers":{"kubewhy":{"command":"kubewhy","args":["mcp","--context","staging"]}}}`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadConfig();
  const target = chooseClusterTarget({
    scenario: values.scenario,
    kubeconfig: values.kubeconfig,
    context: values.context,
    config,
  });
  if ('refusal' in target) {
    process.stderr.write(`kubewhy mcp: ${target.refusal}\n`);
    return 2;
  }
  const connection = await connect(target, { requestTimeoutMs: config.cluster.timeoutMs });
  const database = openDatabase(join(config.dataDir, 'kubewhy.db'));
  try {
    const audit = asAsync(createAuditStore(database));
    const model = await createCommandModel(config);
    const policy: LadderPolicy = {
      actNamespaces: [],
      ...(config.policy.allowedNamespaces ? { allowedNamespaces: config.policy.allowedNamespaces } : {}),
    };
    const registry = toolRegistryFor({ scenario: target.kind === 'scenario', secretKeys: config.policy.secretKeys });
    const session = createMcpSession({
      runId: `mcp-stdio-${randomUUID()}`,
      audit,
      registry,
      cluster: connection.cluster,
      policy,
      toolOutputBytes: config.limits.toolOutputBytes,
      transport: 'stdio',
    });
    const limits = runLimitsOf(config.limits);

    const running = new Set<Promise<DiagnoseAnswer>>();
    const diagnose = async (input: { text: string; namespace?: string }): Promise<DiagnoseAnswer> => {
      const runId = randomUUID();
      const trigger: Trigger = { kind: 'incident', ...input };
      const runAudit = auditFor(audit, runId);
      runAudit.record('run-created', {
        trigger,
        rung: 'OBSERVE',
        source: 'mcp',
        cluster: connection.identity,
        mcpSession: session.runId,
      });
      // Not cut when the client stops waiting (its request cancelled): the run ends, audited, within its own limits.
      const finished = runAgent({
        runId,
        trigger,
        rung: 'OBSERVE',
        model,
        registry,
        cluster: connection.cluster,
        policy,
        audit: runAudit,
        limits,
      }).then(async (outcome): Promise<DiagnoseAnswer> => {
        // The answer names a run whose every step is in the audit log.
        await runAudit.flush();
        return {
          runId,
          status: outcome.status,
          ...(outcome.diagnosis ? { diagnosis: outcome.diagnosis } : {}),
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        };
      });
      running.add(finished);
      void finished.finally(() => running.delete(finished));
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<DiagnoseAnswer>(
        (resolve) => (timer = setTimeout(() => resolve({ runId, status: 'running' }), DIAGNOSE_WAIT_MS)),
      );
      return Promise.race([finished, waited]).finally(() => clearTimeout(timer));
    };

    const server = createMcpServer({
      registry,
      session,
      version: packageJson.version,
      identity: 'stdio',
      diagnose,
      whereIsRun: (runId) => `${commandForm()} audit show --run ${runId}`,
    });
    const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
    await server.connect(new StdioServerTransport());
    process.stderr.write(
      `kubewhy mcp: serving over stdio (cluster: ${describeCluster(connection.identity)}; model: ${model.name}; audit: ${session.runId})\n`,
    );
    process.stdin.once('end', () => void server.close());
    await closed;
    // Diagnoses still running finish (and are audited) before the store closes.
    await Promise.allSettled(running);
    await session
      .flush()
      .catch((error: unknown) =>
        process.stderr.write(
          `kubewhy mcp: the audit log could not be written: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
      );
    return 0;
  } finally {
    database.close();
    await connection.close();
  }
}
