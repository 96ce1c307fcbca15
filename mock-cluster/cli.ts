/**
 * `kubewhy mock-cluster --scenario DIR [--background NAME] [--port N] [--host H]
 * [--kubeconfig FILE] [--generate-pods NAMESPACE=COUNT]... [--fault SPEC]...`: serves a
 * scenario (inside a background cluster, if asked) until SIGINT or SIGTERM, after printing
 * its URL and the kubeconfig it wrote.
 */
import { parseArgs } from 'node:util';
import { parseFaultSpec, type FaultRule } from './faults.ts';
import { BackgroundError } from './backgrounds.ts';
import { loadScenario, ScenarioError, type LoadedScenario } from './loader.ts';
import { startMockCluster } from './server.ts';

const USAGE = `usage: kubewhy mock-cluster --scenario DIR [--background NAME] [--port N] [--host H]
                            [--kubeconfig FILE] [--generate-pods NAMESPACE=COUNT]... [--fault SPEC]...

  --scenario DIR         the scenario to serve (scenario.yaml, cluster.yaml, logs/)
  --background NAME      serve it inside a healthy background cluster (mock-cluster/backgrounds/:
                         eks, aks, kubeadm): realistic noise around the incident
  --port N               port to listen on (default: a free port)
  --host H               address to listen on (default: 127.0.0.1)
  --kubeconfig FILE      where to write the kubeconfig (default: a temporary file)
  --generate-pods NS=N   add N generated pods (in Deployments of 50) to namespace NS
  --fault SPEC           inject faults, e.g. latency:ms=300, 429:fraction=0.5,retryAfter=2,
                         500:path=^/api/v1/pods, 403:path=secrets, drop:fraction=0.1
                         (options: path, method, fraction, count, ms, retryAfter, status)
  Faults can also be changed while running: GET/PUT/DELETE <url>/_mock/faults
`;

function parseGenerated(value: string): { namespace: string; count: number } {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\d+)$/.exec(value);
  if (!match?.[1] || !match[3]) throw new Error(`--generate-pods expects NAMESPACE=COUNT, got "${value}"`);
  return { namespace: match[1], count: Number(match[3]) };
}

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        scenario: { type: 'string' },
        background: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        kubeconfig: { type: 'string' },
        'generate-pods': { type: 'string', multiple: true },
        fault: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`mock-cluster: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.scenario) {
    process.stderr.write(`mock-cluster: --scenario is required\n${USAGE}`);
    return 2;
  }
  let generatedPods: { namespace: string; count: number }[];
  let faults: FaultRule[];
  const port = values.port === undefined ? 0 : Number(values.port);
  try {
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`--port must be a port number, got "${values.port}"`);
    generatedPods = (values['generate-pods'] ?? []).map(parseGenerated);
    faults = (values.fault ?? []).map(parseFaultSpec);
  } catch (error) {
    process.stderr.write(`mock-cluster: ${(error as Error).message}\n`);
    return 2;
  }
  let scenario: LoadedScenario;
  try {
    scenario = await loadScenario(
      values.scenario,
      values.background === undefined ? {} : { background: values.background },
    );
  } catch (error) {
    if (error instanceof BackgroundError) {
      process.stderr.write(`mock-cluster: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(
      `mock-cluster: ${error instanceof ScenarioError ? `scenario ${values.scenario}: ` : ''}${(error as Error).message}\n`,
    );
    return 1;
  }
  let cluster;
  try {
    cluster = await startMockCluster({
      scenario,
      port,
      generatedPods,
      faults,
      ...(values.host ? { host: values.host } : {}),
      ...(values.kubeconfig ? { kubeconfigPath: values.kubeconfig } : {}),
    });
  } catch (error) {
    process.stderr.write(
      `mock-cluster: ${error instanceof ScenarioError ? `scenario ${values.scenario}: ` : ''}${(error as Error).message}\n`,
    );
    return 1;
  }
  const inside = cluster.scenario.background ? ` inside background "${cluster.scenario.background}"` : '';
  process.stdout.write(`mock cluster serving scenario "${cluster.scenario.name}"${inside} at ${cluster.url}\n`);
  process.stdout.write(`kubeconfig: ${cluster.kubeconfigPath}\n`);
  process.stdout.write(`try: kubectl --kubeconfig ${cluster.kubeconfigPath} get pods -A\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await cluster.close();
  process.stdout.write('mock cluster stopped\n');
  return 0;
}
