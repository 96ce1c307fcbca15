/**
 * `kubewhy serve`: the long-running service. Reads the settings, the tokens, opens the
 * SQLite store in the data folder, connects to the cluster (in mock mode it starts the
 * mock cluster in-process over the configured scenario), picks the model, builds the app
 * and listens. Prints the URL and a `curl` line to try. SIGTERM or SIGINT closes it
 * gracefully: no new requests, running runs get the grace period, then everything closes.
 *
 * Without tokens it serves only on loopback, unauthenticated, and says so; it refuses a
 * non-loopback address without tokens unless KUBEWHY_AUTH=off.
 *
 * It holds the data directory's lock (store/lock.ts) from before the database opens until
 * it stops: a second `serve` on the same directory exits with code 2. The token files are
 * re-read when they change (every KUBEWHY_TOKENS_POLL_SECONDS, and at once on SIGHUP).
 */
import type { Server } from 'node:net';
import type { DatabaseSync } from 'node:sqlite';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import packageJson from '../../package.json' with { type: 'json' };
import { createFallback, createModel } from '../agent/models/create-model.ts';
import { createAnchorSigner, readAuditKey, type AnchorSigner } from '../audit/anchors.ts';
import { createModelHealth } from '../agent/models/model-health.ts';
import { createKubeCluster, kubeconfigSource, type KubeClusterOptions } from '../cluster/kube-adapter.ts';
import { describeCluster, identifyCluster, KubeconfigError, type ClusterIdentity } from '../cluster/kubeconfig.ts';
import { noClusterMessage } from './no-cluster.ts';
import { createAgentWorkers, type AgentWorkers, type AgentWorkerSetup } from '../runs/workers/pool.ts';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createAuthenticator, type Authenticator, type AuthSettings, type Scope } from '../server/auth.ts';
import { decideAuth } from '../server/listen-policy.ts';
import { buildServiceApp } from '../app/service.ts';
import { loadNotifications, NotificationsConfigError, type NotificationSettings } from '../notify/notify-config.ts';
import { createLogger } from '../logger.ts';
import { readTokens, TokenFileError, watchTokens, type TokenSet, type TokenWatcher } from '../server/tokens.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import type { Stores } from '../store/ports.ts';
import { openDatabase } from '../store/database.ts';
import { acquireDataDirectoryLock, LockHeldError, type DataDirectoryLock } from '../store/lock.ts';
import { toolRegistryFor } from '../tools/registry.ts';
import { parseFaultSpec, ScenarioError, startMockCluster, type MockCluster } from '../../mock-cluster/index.ts';

const USAGE = `usage: kubewhy serve [--demo]

Serves the HTTP API (Alertmanager webhook, incidents, runs, approvals, audit, metrics).
Every setting comes from the environment (KUBEWHY_HOST, KUBEWHY_PORT, KUBEWHY_DATA_DIR,
KUBEWHY_CLUSTER, KUBEWHY_TOKENS_DIR, ...). The cluster is found as kubectl finds it: a
pod's service account, else KUBECONFIG, else ~/.kube/config (KUBEWHY_KUBE_CONTEXT picks a
context); the offline engine diagnoses unless ANTHROPIC_API_KEY is set.

  --demo   serve the demo scenario on an embedded mock cluster instead (what npm start does;
           the same as KUBEWHY_CLUSTER=mock)`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { demo: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: Config;
  let tokens: Record<Scope, string[]>;
  let auditAnchors: AnchorSigner;
  let notifications: NotificationSettings | undefined;
  try {
    config = loadConfig(undefined, values.demo ? { overrides: { KUBEWHY_CLUSTER: 'mock' } } : {});
    if (config.cluster.mode === 'none') {
      process.stderr.write(`kubewhy serve: ${noClusterMessage(config.cluster.searched)}\n`);
      return 2;
    }
    tokens = await readTokens(config.auth);
    auditAnchors = createAnchorSigner(config.audit.keyFile ? readAuditKey(config.audit.keyFile) : undefined);
    if (config.notifications) notifications = loadNotifications(config.notifications.file, config.notifications);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TokenFileError || error instanceof NotificationsConfigError) {
      process.stderr.write(`kubewhy serve: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  const auth = decideAuth(config, tokens);
  if ('refusal' in auth) {
    process.stderr.write(`kubewhy serve: ${auth.refusal}\n`);
    return 2;
  }
  if (auth.warning) logger.warn(auth.warning);
  for (const notice of startupNotices({
    ...(auditAnchors.keyId ? { auditKeyId: auditAnchors.keyId } : {}),
    ...(notifications ? { notifications } : {}),
  }))
    logger[notice.level](notice.fields, notice.message);

  // One process per SQLite data directory; replicas on PostgreSQL share their database by design.
  let lock: DataDirectoryLock | undefined;
  try {
    if (!config.store.databaseUrl) lock = lockDataDirectory(config, logger);
  } catch (error) {
    process.stderr.write(`kubewhy serve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const authenticator = createAuthenticator(auth.settings);
  const tokenWatcher =
    auth.settings.mode === 'tokens' ? watchTokenFiles({ config, tokens, authenticator, logger }) : undefined;
  const reloadTokens = (): void => {
    if (!tokenWatcher) {
      logger.info('SIGHUP: authentication is off, there are no tokens to re-read');
      return;
    }
    logger.info('SIGHUP: re-reading the tokens');
    void tokenWatcher.reloadNow();
  };
  process.on('SIGHUP', reloadTokens);

  let mock: MockCluster | undefined;
  let workers: AgentWorkers | undefined;
  let stores: Stores | undefined;
  const closeMock = async (): Promise<void> => void (await mock?.close());
  try {
    const clusterOptions = await connectCluster(config, (started) => (mock = started));
    const clusterIdentity = identifyServedCluster(clusterOptions, mock);
    const cluster = createKubeCluster(clusterOptions);
    const opened = await openStores(config, logger);
    stores = opened.stores;
    const model = await createModel(config.model, { logger });
    const modelHealth = createModelHealth();
    // Diagnoses run on worker threads, so that ingest answers at once however many runs are diagnosing.
    if (config.runs.workers > 0) {
      // The workers copy the write-ahead log into the database (agent-worker.ts): a checkpoint, with its fsync, is never the HTTP thread's.
      opened.database?.exec('PRAGMA wal_autocheckpoint = 0');
      workers = createAgentWorkers({
        count: config.runs.workers,
        setup: {
          database: opened.workerDatabase,
          cluster: clusterOptions,
          model: config.model,
          secretKeys: config.policy.secretKeys,
          logLevel: config.logLevel,
        },
        logger,
        modelHealth,
      });
    }
    const app = await buildServiceApp({
      stores,
      agent: {
        model,
        ...createFallback(config.model),
        registry: toolRegistryFor({ scenario: false, secretKeys: config.policy.secretKeys }),
        cluster,
        clusterIdentity,
        policy: config.policy,
        limits: config.limits,
        ...(workers ? { runAgent: workers.runAgent } : {}),
      },
      modelHealth,
      runs: config.runs,
      auth: auth.settings,
      bodyLimitBytes: config.server.bodyLimitBytes,
      webhookBodyLimitBytes: config.server.webhookBodyLimitBytes,
      logger,
      version: packageJson.version,
      auditAnchors,
      authenticator,
      retention: { days: config.store.retentionDays },
      ...(notifications ? { notifications } : {}),
    });
    // Listened for before the port opens: a SIGTERM that comes right after start still shuts down cleanly.
    const signalled = waitForSignal();
    await app.listen({ host: config.server.host, port: config.server.port });
    const url = listeningUrl(app.server.address(), config.server.host);
    process.stdout.write(
      `kubewhy ${packageJson.version} listening on ${url} (cluster: ${describeCluster(clusterIdentity)}; model: ${model.name}; data: ${stores.location})\n`,
    );
    process.stdout.write(`try: ${curlLine({ url, config, mock, auth: auth.settings })}\n`);

    await signalled;
    logger.info('shutting down: no new requests; running runs get the grace period');
    // A second signal means "now".
    const force = (): never => process.exit(1);
    process.once('SIGTERM', force);
    process.once('SIGINT', force);
    await app.close();
    await workers?.close();
    await stores.close();
    opened.database?.close();
    await closeMock();
    logger.info('stopped');
    return 0;
  } catch (error) {
    await workers?.close().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    await closeMock().catch(() => undefined);
    process.stderr.write(`kubewhy serve: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof KubeconfigError || error instanceof ScenarioError ? 2 : 1;
  } finally {
    process.off('SIGHUP', reloadTokens);
    tokenWatcher?.stop();
    lock?.release();
  }
}

export interface StartupNotice {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  message: string;
}

/** What serve says at start about its audit anchors and notifications: the unsigned-anchor warning exactly when no audit key is set. */
export function startupNotices(input: {
  auditKeyId?: string;
  notifications?: Pick<NotificationSettings, 'channels' | 'routes' | 'consoleUrl'>;
}): StartupNotice[] {
  const notices: StartupNotice[] = [
    input.auditKeyId
      ? { level: 'info', fields: { auditKeyId: input.auditKeyId }, message: 'audit anchors are signed (HMAC-SHA256)' }
      : {
          level: 'warn',
          fields: {},
          message: 'audit anchors are logged unsigned: set KUBEWHY_AUDIT_KEY_FILE to sign them',
        },
  ];
  if (input.notifications) {
    const destinations = input.notifications.channels.map((channel) => `${channel.name} (${channel.kind})`);
    notices.push({
      level: 'info',
      fields: { destinations, routes: input.notifications.routes.length, consoleUrl: input.notifications.consoleUrl },
      message: `notifications go to ${destinations.join(', ')}`,
    });
  }
  return notices;
}

/**
 * The stores: PostgreSQL when KUBEWHY_DATABASE_URL names one (migrated before the port
 * opens, so a replica is ready only on an up-to-date schema), else SQLite in the data
 * directory. The agent workers open their own connection to the same database.
 */
async function openStores(
  config: Config,
  logger: Logger,
): Promise<{ stores: Stores; database?: DatabaseSync; workerDatabase: AgentWorkerSetup['database'] }> {
  const onAfterCommitError = (error: unknown): void => logger.error({ err: error }, 'after a committed write');
  const url = config.store.databaseUrl;
  if (url) {
    const { openPostgresStores } = await import('../store/postgres/stores.ts');
    const stores = await openPostgresStores(url, {
      owner: config.store.replica,
      leaseMs: config.store.leaseMs,
      onAfterCommitError,
      onError: (error) => logger.warn({ err: error }, 'a database connection failed; it is opened again'),
    });
    logger.info(
      { database: stores.location, replica: config.store.replica, leaseSeconds: config.store.leaseMs / 1000 },
      'runs, queue and audit log are in PostgreSQL, shared with the other replicas',
    );
    return { stores, workerDatabase: { kind: 'postgresql', url } };
  }
  const path = join(config.dataDir, 'kubewhy.db');
  const database = openDatabase(path);
  return {
    stores: createSqliteStores(database, { location: path, onAfterCommitError }),
    database,
    workerDatabase: { kind: 'sqlite', path },
  };
}

/** Takes the data directory's lock, or throws LockHeldError naming who holds it. */
function lockDataDirectory(config: Config, logger: Logger): DataDirectoryLock {
  const directory = resolve(config.dataDir);
  try {
    return acquireDataDirectoryLock({
      directory,
      onTakeover: (previous, reason) =>
        logger.warn(
          { previousOwner: previous },
          `took over a stale lock on the data directory ${directory}: ${reason}`,
        ),
      onLost: (holder) => {
        logger.error(
          { holder },
          `another process took over the lock on the data directory ${directory}: stopping, so that two services never share it`,
        );
        process.kill(process.pid, 'SIGTERM');
      },
    });
  } catch (error) {
    if (error instanceof LockHeldError) throw error;
    throw new Error(
      `cannot lock the data directory ${directory}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Re-reads the token files when they change; a failed reload keeps the tokens in use and says which file is wrong. */
function watchTokenFiles(input: {
  config: Config;
  tokens: TokenSet;
  authenticator: Authenticator;
  logger: Logger;
}): TokenWatcher {
  const { logger } = input;
  return watchTokens({
    settings: input.config.auth,
    initial: input.tokens,
    intervalMs: input.config.tokenFiles.pollMs,
    onChange(tokens) {
      input.authenticator.replaceTokens(tokens);
      const counts = Object.fromEntries(Object.entries(tokens).map(([scope, list]) => [scope, list.length]));
      logger.info({ tokens: counts }, 'tokens reloaded: the new set is in use');
    },
    onError(error) {
      logger.error(`tokens not reloaded, the ones in use stay: ${error.message}`);
    },
  });
}

/** How to reach the cluster (starting the mock cluster in mock mode): the HTTP thread and every agent worker build their client from it. */
async function connectCluster(config: Config, onMock: (mock: MockCluster) => void): Promise<KubeClusterOptions> {
  const requestTimeoutMs = config.cluster.timeoutMs;
  switch (config.cluster.mode) {
    case 'mock': {
      const mock = await startMockCluster({
        scenario: config.cluster.scenarioDir,
        faults: config.cluster.faults.map(parseFaultSpec),
      }).catch((error: unknown) => {
        throw error instanceof ScenarioError
          ? new ScenarioError({ file: 'KUBEWHY_MOCK_SCENARIO' }, error.message)
          : error;
      });
      onMock(mock);
      return { kubeconfigPath: mock.kubeconfigPath, requestTimeoutMs };
    }
    case 'kubeconfig':
      return {
        ...(config.cluster.kubeconfigPath ? { kubeconfigPath: config.cluster.kubeconfigPath } : {}),
        ...(config.cluster.context ? { context: config.cluster.context } : {}),
        requestTimeoutMs,
      };
    case 'in-cluster':
      return { inCluster: true, requestTimeoutMs };
    case 'none':
      throw new Error(noClusterMessage(config.cluster.searched));
  }
}

/** The cluster every run of this service reads, as runs record it; throws KubeconfigError for a kubeconfig a person must fix. */
function identifyServedCluster(options: KubeClusterOptions, mock: MockCluster | undefined): ClusterIdentity {
  const identity = identifyCluster(kubeconfigSource(options));
  return mock ? { source: 'mock', server: identity.server, scenario: mock.scenario.name } : identity;
}

function listeningUrl(address: ReturnType<Server['address']>, host: string): string {
  if (address && typeof address === 'object') {
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
  }
  return `http://${host}`;
}

function curlLine(input: { url: string; config: Config; mock: MockCluster | undefined; auth: AuthSettings }): string {
  const incident = input.mock?.scenario.meta.trigger.incident ?? 'checkout-api in staging keeps restarting';
  const namespace = input.mock?.scenario.meta.trigger.alert?.labels?.namespace;
  const body = JSON.stringify({ text: incident, ...(namespace ? { namespace } : {}) }).replaceAll("'", "'\\''");
  const token =
    input.auth.mode === 'off'
      ? ''
      : input.config.auth.tokensDir
        ? ` -H "authorization: Bearer $(head -n1 ${join(input.config.auth.tokensDir, 'ingest')})"`
        : ' -H "authorization: Bearer $KUBEWHY_TOKEN_INGEST"';
  return `curl -s -X POST '${input.url}/v1/incidents?wait=60'${token} -H 'content-type: application/json' -d '${body}'`;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
