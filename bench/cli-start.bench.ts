/**
 * What one `kubewhy` command costs to start: the CPU time (user + system) of
 * `kubewhy --help` and of `kubewhy diagnose` on the demo incident (embedded mock cluster,
 * offline engine), run from the sources and from a build, beside the baseline measured in
 * the same run: `node -e 0`, a Node process that does nothing. Aim: diagnose at most 6×
 * the baseline (the diagnosis itself takes tens of milliseconds; the rest is loading code
 * and the demo's scenario). Loading `@kubernetes/client-node` alone is timed too, as the
 * share of diagnose that the cluster client takes.
 *
 * How CPU is measured: each command runs under bash's `time` keyword with
 * TIMEFORMAT='%3U %3S', which reports the user and system CPU the kernel accounted to the
 * command and its children when it ended (wait4's rusage); Node has no API for a
 * child's CPU. The machine is shared and noisy, so rounds interleave the commands (load
 * falls on all of them alike) and each figure is the median of its rounds. Each command
 * runs once before the rounds to fill the compile cache, as on any start but the first.
 *
 * The build: `tsc -p tsconfig.build.json` into a temporary folder laid out as an installed
 * package (bin/, dist/, package.json, node_modules; no src/), so bin/kubewhy.js takes the
 * path it takes once installed.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, type SummaryRow } from './summary.ts';

export const name = 'Start-up of the CLI (CPU per command)';

const ROUNDS = 7;
const AIM_RATIO = 6;
const ROOT = join(import.meta.dirname, '..');
const DEMO_TEXT = 'checkout-api in staging keeps restarting';

interface Command {
  label: string;
  argv: string[];
  /** What its output must contain, so a failing command is never timed as a fast one ('' for none). */
  expect: string;
}

/** The user + system CPU seconds of one run of `argv`, whose output must hold `expect`. */
function measureCpu(command: Command, workspace: Workspace): number {
  const output = join(workspace.directory, 'output.txt');
  const script = `TIMEFORMAT='%3U %3S'; time "$@" >"${output}" 2>&1`;
  const result = spawnSync('bash', ['-c', script, 'bash', ...command.argv], {
    cwd: workspace.directory,
    env: workspace.env,
    encoding: 'utf8',
  });
  const printed = readFileSync(output, 'utf8');
  if (!printed.includes(command.expect))
    throw new Error(
      `${command.label} (exit ${result.status}) did not print "${command.expect}":\n${printed.slice(0, 2000)}`,
    );
  const [user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  if (!Number.isFinite(user) || !Number.isFinite(system))
    throw new Error(`cannot read the CPU time of ${command.label} from "${result.stderr}"`);
  return user! + system!;
}

interface Workspace {
  directory: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A scratch folder for the runs' data and compile cache, and the settings that pin every
 * run to the demo: the mock cluster, the offline engine, nothing from the caller's shell.
 */
function createWorkspace(): Workspace {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-cli-start-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: directory,
    NODE_COMPILE_CACHE: join(directory, 'compile-cache'),
    KUBEWHY_CLUSTER: 'mock',
    KUBEWHY_MODEL: 'offline',
    KUBEWHY_MOCK_SCENARIO: join(ROOT, 'mock-cluster/scenarios/checkout-secret-rotation'),
    KUBEWHY_DATA_DIR: join(directory, 'data'),
    KUBEWHY_LOG_LEVEL: 'warn',
  };
  return { directory, env };
}

/** Builds kubewhy into `directory` as an installed package has it; returns its bin script. */
function buildPackage(directory: string): string {
  const started = performance.now();
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(directory, 'dist')],
    { encoding: 'utf8' },
  );
  // Type errors do not change the JavaScript tsc emits (types are only erased): time it anyway, and say so.
  if (!existsSync(join(directory, 'dist/src/main.js')))
    throw new Error(`the build failed:\n${result.stdout}${result.stderr}`);
  if (result.status !== 0)
    process.stdout.write(
      `the build reported type errors (npx tsc -p tsconfig.build.json lists them); timing what it emitted\n`,
    );
  mkdirSync(join(directory, 'bin'));
  copyFileSync(join(ROOT, 'bin/kubewhy.js'), join(directory, 'bin/kubewhy.js'));
  copyFileSync(join(ROOT, 'package.json'), join(directory, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(directory, 'node_modules'));
  process.stdout.write(`built into ${directory} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return join(directory, 'bin/kubewhy.js');
}

interface Install {
  /** `source` or `the build`. */
  from: string;
  help: Command;
  diagnose: Command;
}

function installAt(bin: string, from: string): Install {
  return {
    from,
    help: { label: `kubewhy --help (${from})`, argv: [process.execPath, bin, '--help'], expect: 'usage: kubewhy' },
    diagnose: {
      label: `kubewhy diagnose (${from})`,
      argv: [process.execPath, bin, 'diagnose', DEMO_TEXT],
      expect: 'Diagnosis: bad-credentials',
    },
  };
}

/** Median CPU seconds per command, rounds interleaved; the first (cold-cache) run is printed apart. */
function measureAll(commands: Command[], workspace: Workspace): Map<string, number> {
  const cold = commands.map((command) => `${command.label} ${formatSeconds(measureCpu(command, workspace))}`);
  process.stdout.write(`first run, compile cache empty: ${cold.join(', ')}\n`);
  const samples = new Map<string, number[]>(commands.map((command) => [command.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const command of commands) samples.get(command.label)!.push(measureCpu(command, workspace));
  }
  return new Map([...samples].map(([label, values]) => [label, median(values)]));
}

function formatSeconds(seconds: number): string {
  return `${Math.round(seconds * 1000)} ms`;
}

export async function runBench(): Promise<SummaryRow[]> {
  const workspace = createWorkspace();
  try {
    const packageBin = buildPackage(join(workspace.directory, 'package'));
    const baseline: Command = { label: 'node -e 0', argv: [process.execPath, '-e', '0'], expect: '' };
    const clientNode: Command = {
      label: 'import @kubernetes/client-node',
      argv: [
        process.execPath,
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(import.meta.resolve('@kubernetes/client-node'))})`,
      ],
      expect: '',
    };
    const installs = [installAt(join(ROOT, 'bin/kubewhy.js'), 'source'), installAt(packageBin, 'the build')];
    const medians = measureAll(
      [baseline, clientNode, ...installs.flatMap((install) => [install.help, install.diagnose])],
      workspace,
    );
    const baselineSeconds = medians.get(baseline.label)!;
    process.stdout.write(`CPU (user + system), median of ${ROUNDS} interleaved rounds:\n`);
    for (const [label, seconds] of medians)
      process.stdout.write(
        `  ${label.padEnd(30)} ${formatSeconds(seconds).padStart(8)}  ${(seconds / baselineSeconds).toFixed(1)}× node -e 0\n`,
      );
    return installs.map((install): SummaryRow => {
      const seconds = medians.get(install.diagnose.label)!;
      const ratio = seconds / baselineSeconds;
      return {
        figure: `kubewhy diagnose CPU (demo, offline, from ${install.from})`,
        kubewhy: formatSeconds(seconds),
        baseline: `${formatSeconds(baselineSeconds)} (node -e 0)`,
        ratio,
        aim: `≤ ${AIM_RATIO}×`,
        met: ratio <= AIM_RATIO,
      };
    });
  } finally {
    rmSync(workspace.directory, { recursive: true, force: true });
  }
}
