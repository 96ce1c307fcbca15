/**
 * Writes a snapshot as a scenario folder in the SCENARIOS.md format: `scenario.yaml`
 * (name, description, now, trigger, and a commented-out `expect` to fill in),
 * `cluster.yaml` (one YAML document per object) and `logs/<namespace>/<pod>/<container>.log`
 * or `.previous.log`. An existing folder that is not empty is refused unless `force`; then
 * only what a capture writes is replaced.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CaptureError } from './capture-error.ts';
import type { Snapshot } from './capture.ts';

const EXPECT_HINT = `# To score this capture with \`kubewhy eval --scenarios DIR\`, say what a correct diagnosis is:
# expect:
#   category: app-crash                      # one of the categories in SCENARIOS.md
#   culprit: Deployment/NAMESPACE/NAME        # Kind/namespace/name (Kind/name for a Node)
#   mustMention: ["a phrase the evidence must hold"]
`;

/** Refuses an `out` that exists and holds anything, unless `force`. */
export async function checkOutput(out: string, force: boolean): Promise<void> {
  const entries = await readdir(out).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return [];
    if (error.code === 'ENOTDIR') throw new CaptureError(`${out} exists and is not a folder`);
    throw new CaptureError(`${out} cannot be read: ${error.code ?? String(error)}`);
  });
  if (entries.length > 0 && !force)
    throw new CaptureError(
      `${out} exists and is not empty: choose another folder, or pass --force to replace its scenario`,
    );
}

export async function writeScenario(
  out: string,
  snapshot: Snapshot,
  options: { force?: boolean } = {},
): Promise<{ files: number }> {
  await checkOutput(out, options.force ?? false);
  await mkdir(out, { recursive: true });
  await Promise.all(
    ['scenario.yaml', 'cluster.yaml', 'logs'].map((entry) => rm(join(out, entry), { recursive: true, force: true })),
  );
  await writeFile(join(out, 'scenario.yaml'), `${stringify(snapshot.meta, { lineWidth: 0 })}${EXPECT_HINT}`);
  await writeFile(
    join(out, 'cluster.yaml'),
    snapshot.objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n'),
  );
  for (const log of snapshot.logs) {
    const dir = join(out, 'logs', log.namespace, log.pod);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, `${log.container}${log.previous ? '.previous' : ''}.log`),
      log.text.endsWith('\n') ? log.text : `${log.text}\n`,
    );
  }
  return { files: 2 + snapshot.logs.length };
}
