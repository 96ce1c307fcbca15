/**
 * An MCP session's tool calls, made through the agent's own path (`executeToolCall`): the
 * gate validates the arguments and checks the namespace, a read runs with a read-only
 * cluster and comes back redacted and bounded to `toolOutputBytes`, and a write is
 * recorded as a proposal (the session sits at OBSERVE). Every call lands in the audit
 * chain `runId` names, each event stamped with who called (`client`). Never throws for a
 * tool's failure.
 */
import { randomUUID } from 'node:crypto';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Action } from '../agent/diagnosis.ts';
import type { AgentObserver } from '../agent/observer.ts';
import { auditFor, type RunAudit } from '../agent/run-audit.ts';
import { executeToolCall, type CallEnvironment } from '../agent/tool-calls.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { LadderPolicy } from '../gate/rung.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolResult } from '../tools/tool.ts';

/** Who is calling, as the audit records it: a token identity (`read#1a2b3c4d`) or `stdio` with the client's name and version. */
export interface McpClient {
  identity: string;
  name?: string;
  version?: string;
}

export interface McpSessionSettings {
  /** The audit chain of this session's calls. */
  runId: string;
  audit: AuditStore;
  registry: ToolRegistry;
  cluster: Cluster;
  policy: LadderPolicy;
  toolOutputBytes: number;
  /** What the session's first event records as its start. */
  transport: 'stdio' | 'http';
  /** Hears of each call and gate decision (the service's metrics); default: none. */
  observer?: AgentObserver;
}

export interface McpSession {
  readonly runId: string;
  /** A read, or a write recorded as a proposal; `client` is stamped on every event. */
  call(input: { name: string; arguments: unknown; client: McpClient; signal: AbortSignal }): Promise<ToolResult>;
  /** Records an event of this session (a call answered elsewhere: diagnose, a held write). */
  record(client: McpClient, type: 'tool-call' | 'tool-result', payload: Record<string, unknown>): void;
  /** Resolves once every event recorded so far is stored; rejects with the first append that failed. */
  flush(): Promise<void>;
}

export function createMcpSession(settings: McpSessionSettings): McpSession {
  const { audit, runId } = settings;
  const actions: Action[] = [];
  // The chain opens with `run-created`, by the first caller, unless it was opened before.
  const sessionAudit = auditFor(audit, runId, {
    beforeFirst: async ({ payload, time }) => {
      if ((await audit.head(runId)) !== undefined) return;
      await audit.append({
        runId,
        type: 'run-created',
        payload: {
          trigger: { kind: 'mcp', transport: settings.transport },
          rung: 'OBSERVE',
          source: 'mcp',
          client: payload.client,
        },
        time,
      });
    },
  });
  const append = (client: McpClient, type: Parameters<RunAudit['record']>[0], payload: Record<string, unknown>): void =>
    sessionAudit.record(type, { ...payload, client });
  const flush = (): Promise<void> => sessionAudit.flush();
  const auditAs = (client: McpClient): RunAudit => ({
    record: (type, payload) => append(client, type, payload),
    flush,
  });
  return {
    runId,
    async call({ name, arguments: rawInput, client, signal }) {
      const environment: CallEnvironment = {
        runId,
        // A session never holds: a write is only proposed. Holding needs a run a person can decide (hold-run.ts).
        rung: 'OBSERVE',
        policy: settings.policy,
        registry: settings.registry,
        toolContext: {
          cluster: settings.cluster,
          signal,
          outputBudgetBytes: settings.toolOutputBytes,
          ...(settings.policy.allowedNamespaces ? { allowedNamespaces: settings.policy.allowedNamespaces } : {}),
        },
        approvalTtlMs: 0,
        maxHeldActions: 0,
        audit: auditAs(client),
        observer: settings.observer ?? {},
        actions,
        heldCalls: new Map(),
        writeData: new Map(),
      };
      const result = await executeToolCall(
        { id: `mcp-${randomUUID().slice(0, 8)}`, name, input: rawInput ?? {} },
        environment,
      );
      // The client hears the answer once the call is in the audit log.
      await flush();
      return result;
    },
    record(client, type, payload) {
      append(client, type, payload);
    },
    flush,
  };
}
