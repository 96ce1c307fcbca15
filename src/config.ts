/**
 * Every setting, parsed once from the environment (and flags the CLI passes as
 * overrides) with zod. Nothing else reads `process.env`. A bad value fails fast with a
 * message that names the setting.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describeSettingIssue } from './config-errors.ts';
import { modelEnvironmentShape, ModelSettingsError, resolveModel, type ModelSettings } from './model-settings.ts';
import { DEMO_SCENARIO_DIR } from './package-paths.ts';

export { DEFAULT_ANTHROPIC_MODEL } from './model-settings.ts';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

const positiveInteger = z.coerce.number().int().min(1);

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** Environment variable → setting. Defaults are the embedded ones: mock cluster, offline engine, SQLite. */
const environmentSchema = z.object({
  KUBEWHY_HOST: z.string().min(1).default('127.0.0.1'),
  KUBEWHY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  KUBEWHY_DATA_DIR: z.string().min(1).default('data'),
  KUBEWHY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  KUBEWHY_CLUSTER: z.enum(['auto', 'mock', 'kubeconfig', 'in-cluster']).default('auto'),
  KUBECONFIG: z.string().min(1).optional(),
  KUBEWHY_KUBE_CONTEXT: z.string().min(1).optional(),
  KUBERNETES_SERVICE_HOST: z.string().optional(),
  /** Where ~/.kube/config is looked for, as kubectl looks for it. */
  HOME: z.string().optional(),
  KUBEWHY_MOCK_SCENARIO: z.string().min(1).default(DEMO_SCENARIO_DIR),
  /** Faults the in-process mock cluster injects, `;`-separated specs as `kubewhy mock-cluster --fault` takes them (e.g. `latency:ms=200`). */
  KUBEWHY_MOCK_FAULTS: z.string().default(''),
  KUBEWHY_CLUSTER_TIMEOUT_SECONDS: positiveInteger.default(15),

  ...modelEnvironmentShape,

  KUBEWHY_MAX_STEPS: z.coerce.number().int().min(2).max(100).default(12),
  /** In input-token equivalents: each token weighs its price relative to an input token (cache reads 0.1×, output 5×...). */
  KUBEWHY_TOKEN_BUDGET: positiveInteger.default(400_000),
  KUBEWHY_RUN_TIMEOUT_SECONDS: positiveInteger.default(600),
  KUBEWHY_TOOL_OUTPUT_BYTES: z.coerce.number().int().min(1024).max(1_000_000).default(16_384),
  KUBEWHY_APPROVAL_TTL_SECONDS: positiveInteger.default(3600),
  /** How many actions one run may hold for a person's approval. */
  KUBEWHY_MAX_HELD_ACTIONS: z.coerce.number().int().min(1).max(20).default(3),

  KUBEWHY_ACT_NAMESPACES: commaList.default([]),
  KUBEWHY_ALLOWED_NAMESPACES: commaList.default([]),
  KUBEWHY_SECRET_KEYS: booleanFlag.default(false),

  KUBEWHY_AUTH: z.enum(['tokens', 'off']).default('tokens'),
  KUBEWHY_TOKENS_DIR: z.string().min(1).optional(),
  KUBEWHY_TOKEN_INGEST: z.string().min(16).optional(),
  KUBEWHY_TOKEN_READ: z.string().min(16).optional(),
  KUBEWHY_TOKEN_APPROVE: z.string().min(16).optional(),
  KUBEWHY_TOKEN_ACT: z.string().min(16).optional(),
  /** How often the files in KUBEWHY_TOKENS_DIR are checked for a change (rotation without restart); SIGHUP checks at once. */
  KUBEWHY_TOKENS_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  /** Finished runs older than this many days are removed with their audit events; 0 keeps them forever. */
  KUBEWHY_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** A PostgreSQL database that several replicas share (postgres://user:password@host:5432/db); unset: SQLite in the data directory. */
  KUBEWHY_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** This replica's name, recorded as the holder of the runs it leases (default: the host name and process id). */
  KUBEWHY_REPLICA: z
    .string()
    .regex(/^[\w.:-]{1,253}$/, 'must be letters, digits and . _ : - (a pod name)')
    .optional(),
  /** How long a run a replica claimed stays its own without a heartbeat; after it, another replica takes the run over. */
  KUBEWHY_RUN_LEASE_SECONDS: z.coerce.number().int().min(3).max(3600).default(30),

  KUBEWHY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Worker threads that diagnose, off the HTTP thread; 0 diagnoses on the HTTP thread. Default: the cores but one, 1 to 4. */
  KUBEWHY_RUN_WORKERS: z.coerce.number().int().min(0).max(32).optional(),
  KUBEWHY_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  KUBEWHY_DEDUP_WINDOW_SECONDS: positiveInteger.default(4 * 3600),
  KUBEWHY_RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  KUBEWHY_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(20),
  /** After a run fails, its incident starts no other run for this long, doubled per failure in a row, up to the max. */
  KUBEWHY_FAILURE_BACKOFF_SECONDS: positiveInteger.default(60),
  KUBEWHY_FAILURE_BACKOFF_MAX_SECONDS: positiveInteger.default(3600),
  KUBEWHY_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** The Alertmanager webhook's own limit: one notification carries a whole alert group (10,000 alerts measure about 12 MB). */
  KUBEWHY_WEBHOOK_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(32 * 1024 * 1024),
  /** A file holding the HMAC key that signs the audit anchors in the log (at least 32 bytes); unset: anchors are logged unsigned. */
  KUBEWHY_AUDIT_KEY_FILE: z.string().min(1).optional(),
  /** The notifications file: destinations (Slack, Teams, signed webhooks) and the routes to them (README, "Notifications"); unset: nothing is sent. */
  KUBEWHY_NOTIFICATIONS_FILE: z.string().min(1).optional(),
  /** The console's address as people reach it, for the links in notifications (overrides the file's consoleUrl). */
  KUBEWHY_CONSOLE_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export type Environment = Record<string, string | undefined>;

/** Every environment variable kubewhy reads (the README's settings table lists each one). */
export const SETTING_NAMES: readonly string[] = Object.keys(environmentSchema.shape);

export interface Config {
  server: { host: string; port: number; bodyLimitBytes: number; webhookBodyLimitBytes: number };
  dataDir: string;
  logLevel: z.infer<typeof environmentSchema>['KUBEWHY_LOG_LEVEL'];
  cluster:
    | { mode: 'mock'; scenarioDir: string; faults: string[]; timeoutMs: number }
    | { mode: 'kubeconfig'; kubeconfigPath?: string; context?: string; timeoutMs: number }
    | { mode: 'in-cluster'; timeoutMs: number }
    /** No cluster to read: `searched` says where kubectl's lookup found none. */
    | { mode: 'none'; searched: string[]; timeoutMs: number };
  model: ModelSettings;
  limits: {
    maxSteps: number;
    tokenBudget: number;
    runTimeoutMs: number;
    toolOutputBytes: number;
    approvalTtlMs: number;
    maxHeldActions: number;
  };
  policy: { actNamespaces: string[]; allowedNamespaces?: string[]; secretKeys: boolean };
  auth: {
    mode: 'tokens' | 'off';
    tokensDir?: string;
    tokens: { ingest?: string; read?: string; approve?: string; act?: string };
  };
  /** pollMs: how often the token files are checked for a change. */
  tokenFiles: { pollMs: number };
  /**
   * retentionDays: finished runs older than this are removed (0: never). databaseUrl: the
   * PostgreSQL database replicas share (absent: SQLite); replica: this process's name as a
   * lease holder; leaseMs: how long a claimed run stays its own without a heartbeat.
   */
  store: { retentionDays: number; databaseUrl?: string; replica: string; leaseMs: number };
  /** maxAttempts: starts of one run (restarts resume it) before it fails; shutdownGraceMs: how long SIGTERM waits for running runs. */
  /** workers: threads that diagnose off the HTTP thread (0: on it). */
  runs: {
    concurrency: number;
    workers: number;
    queueSize: number;
    dedupWindowMs: number;
    maxAttempts: number;
    shutdownGraceMs: number;
    failureBackoffMs: number;
    failureBackoffMaxMs: number;
  };
  /** keyFile: the HMAC key that signs audit anchors (read at start, never stored). */
  audit: { keyFile?: string };
  /** The notifications file and what it needs to be read; absent: no notifications. */
  notifications?: { file: string; consoleUrl?: string; environment: Environment };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** How a command adjusts the settings: `defaults` give way to the environment, `overrides` win over it (a flag such as `serve --demo`). */
export interface LoadOptions {
  /** Whether ~/.kube/config is there (a test passes its own). */
  fileExists?: (path: string) => boolean;
  defaults?: Environment;
  overrides?: Environment;
}

/** Parses settings from an environment (process.env by default). Throws ConfigError naming each bad setting. */
export function loadConfig(base: Environment = process.env, options: LoadOptions = {}): Config {
  const environment = {
    ...stripEmpty(options.defaults ?? {}),
    ...stripEmpty(base),
    ...stripEmpty(options.overrides ?? {}),
  };
  const fileExists = options.fileExists ?? existsSync;
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      describeSettingIssue({ issue, environment, shape: environmentSchema.shape }),
    );
    throw new ConfigError(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
  const settings = parsed.data;
  return {
    server: {
      host: settings.KUBEWHY_HOST,
      port: settings.KUBEWHY_PORT,
      bodyLimitBytes: settings.KUBEWHY_BODY_LIMIT_BYTES,
      webhookBodyLimitBytes: settings.KUBEWHY_WEBHOOK_BODY_LIMIT_BYTES,
    },
    dataDir: settings.KUBEWHY_DATA_DIR,
    logLevel: settings.KUBEWHY_LOG_LEVEL,
    cluster: resolveCluster(settings, fileExists),
    model: modelOf(settings),
    limits: {
      maxSteps: settings.KUBEWHY_MAX_STEPS,
      tokenBudget: settings.KUBEWHY_TOKEN_BUDGET,
      runTimeoutMs: settings.KUBEWHY_RUN_TIMEOUT_SECONDS * 1000,
      toolOutputBytes: settings.KUBEWHY_TOOL_OUTPUT_BYTES,
      approvalTtlMs: settings.KUBEWHY_APPROVAL_TTL_SECONDS * 1000,
      maxHeldActions: settings.KUBEWHY_MAX_HELD_ACTIONS,
    },
    policy: {
      actNamespaces: settings.KUBEWHY_ACT_NAMESPACES,
      ...(settings.KUBEWHY_ALLOWED_NAMESPACES.length > 0
        ? { allowedNamespaces: settings.KUBEWHY_ALLOWED_NAMESPACES }
        : {}),
      secretKeys: settings.KUBEWHY_SECRET_KEYS,
    },
    auth: {
      mode: settings.KUBEWHY_AUTH,
      ...(settings.KUBEWHY_TOKENS_DIR ? { tokensDir: settings.KUBEWHY_TOKENS_DIR } : {}),
      tokens: {
        ...(settings.KUBEWHY_TOKEN_INGEST ? { ingest: settings.KUBEWHY_TOKEN_INGEST } : {}),
        ...(settings.KUBEWHY_TOKEN_READ ? { read: settings.KUBEWHY_TOKEN_READ } : {}),
        ...(settings.KUBEWHY_TOKEN_APPROVE ? { approve: settings.KUBEWHY_TOKEN_APPROVE } : {}),
        ...(settings.KUBEWHY_TOKEN_ACT ? { act: settings.KUBEWHY_TOKEN_ACT } : {}),
      },
    },
    tokenFiles: { pollMs: settings.KUBEWHY_TOKENS_POLL_SECONDS * 1000 },
    store: {
      retentionDays: settings.KUBEWHY_RETENTION_DAYS,
      ...(settings.KUBEWHY_DATABASE_URL ? { databaseUrl: settings.KUBEWHY_DATABASE_URL } : {}),
      replica: settings.KUBEWHY_REPLICA ?? `${hostname()}-${process.pid}`,
      leaseMs: settings.KUBEWHY_RUN_LEASE_SECONDS * 1000,
    },
    runs: {
      concurrency: settings.KUBEWHY_CONCURRENCY,
      workers: settings.KUBEWHY_RUN_WORKERS ?? defaultRunWorkers(),
      queueSize: settings.KUBEWHY_QUEUE_SIZE,
      dedupWindowMs: settings.KUBEWHY_DEDUP_WINDOW_SECONDS * 1000,
      maxAttempts: settings.KUBEWHY_RUN_MAX_ATTEMPTS,
      shutdownGraceMs: settings.KUBEWHY_SHUTDOWN_GRACE_SECONDS * 1000,
      failureBackoffMs: settings.KUBEWHY_FAILURE_BACKOFF_SECONDS * 1000,
      failureBackoffMaxMs: settings.KUBEWHY_FAILURE_BACKOFF_MAX_SECONDS * 1000,
    },
    audit: { ...(settings.KUBEWHY_AUDIT_KEY_FILE ? { keyFile: settings.KUBEWHY_AUDIT_KEY_FILE } : {}) },
    // Read by serve alone (notify-config.ts), with the environment its `{ env: NAME }` references name.
    ...(settings.KUBEWHY_NOTIFICATIONS_FILE
      ? {
          notifications: {
            file: settings.KUBEWHY_NOTIFICATIONS_FILE,
            environment,
            ...(settings.KUBEWHY_CONSOLE_URL ? { consoleUrl: settings.KUBEWHY_CONSOLE_URL } : {}),
          },
        }
      : {}),
  };
}

type Settings = z.infer<typeof environmentSchema>;

/** The model the settings choose; a combination that cannot work is an invalid setting. */
function modelOf(settings: Settings): ModelSettings {
  try {
    return resolveModel(settings);
  } catch (error) {
    if (error instanceof ModelSettingsError) throw new ConfigError(`invalid settings:\n  ${error.message}`);
    throw error;
  }
}

/**
 * The cluster, found as kubectl finds it: inside a pod its service account, else the files in
 * KUBECONFIG, else ~/.kube/config. The embedded mock cluster only when asked for
 * (KUBEWHY_CLUSTER=mock): an answer about the demo must never pass for one about your cluster.
 */
function resolveCluster(settings: Settings, fileExists: (path: string) => boolean): Config['cluster'] {
  const timeoutMs = settings.KUBEWHY_CLUSTER_TIMEOUT_SECONDS * 1000;
  const homeKubeconfig = settings.HOME ? join(settings.HOME, '.kube', 'config') : undefined;
  const kubeconfigPath =
    settings.KUBECONFIG ?? (homeKubeconfig && fileExists(homeKubeconfig) ? homeKubeconfig : undefined);
  let mode = settings.KUBEWHY_CLUSTER;
  if (mode === 'auto') {
    if (settings.KUBERNETES_SERVICE_HOST) mode = 'in-cluster';
    else if (kubeconfigPath) mode = 'kubeconfig';
    else
      return {
        mode: 'none',
        searched: [
          'KUBECONFIG (not set)',
          `${homeKubeconfig ?? '~/.kube/config'} (not there)`,
          "a pod's service account (KUBERNETES_SERVICE_HOST not set)",
        ],
        timeoutMs,
      };
  }
  if (mode === 'mock') {
    const faults = settings.KUBEWHY_MOCK_FAULTS.split(';')
      .map((spec) => spec.trim())
      .filter((spec) => spec.length > 0);
    return { mode, scenarioDir: settings.KUBEWHY_MOCK_SCENARIO, faults, timeoutMs };
  }
  if (mode === 'in-cluster') return { mode, timeoutMs };
  return {
    mode,
    timeoutMs,
    ...(kubeconfigPath ? { kubeconfigPath } : homeKubeconfig ? { kubeconfigPath: homeKubeconfig } : {}),
    ...(settings.KUBEWHY_KUBE_CONTEXT ? { context: settings.KUBEWHY_KUBE_CONTEXT } : {}),
  };
}

/** The folders the shell searches for commands (PATH): where an installed `kubewhy` would be found. */
export function commandSearchPath(environment: Environment = process.env): string {
  return environment.PATH ?? '';
}

/** An empty variable means "not set", as a shell user expects. */
function stripEmpty(environment: Environment): Environment {
  return Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''));
}

/** One thread per core beside the HTTP thread's, at least one and at most four: a diagnosis waits on the API server and the model as much as it computes. */
function defaultRunWorkers(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}
