/**
 * Container command ↔ the image's files: the command or entrypoint names a path the image
 * does not have (any more), so the container cannot start. Often a new image moved its
 * binary while the pod spec kept the old command.
 */
import type { MismatchFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { exampleContainer, examplePod } from './example-objects.ts';
import { logContainerOf } from './log-container.ts';

const ID = 'command-path-not-in-image';

/** The start errors that name the missing path, as runc, crun, containerd and shells print them. */
const START_ERRORS: readonly {
  readonly form: RegExp;
  readonly missing: 'file' | 'path-lookup' | 'file-or-interpreter';
}[] = [
  // containerd/runc: exec: "/app/bin/server": stat /app/bin/server: no such file or directory
  { form: /exec: "([^"]+)": (?:stat [^:]+: )?no such file or directory/i, missing: 'file' },
  // runc/crun: exec: "gunicorn": executable file not found in $PATH
  { form: /exec: "([^"]+)": executable file not found in \$PATH/i, missing: 'path-lookup' },
  // The runtime's own message after the process image could not be loaded: exec /app/server: no such file or directory
  { form: /(?:^|\s)exec (\/\S+): no such file or directory/i, missing: 'file-or-interpreter' },
  // sh and bash: /bin/sh: 1: gunicorn: not found, /docker-entrypoint.sh: line 12: /app/start.sh: No such file or directory
  {
    form: /(?:^|\s)\S*(?:sh|bash)(?: -c)?:(?: line \d+:| \d+:)? (\S+): (?:not found|No such file or directory)/,
    missing: 'file',
  },
];

function findStartError(
  lines: readonly string[],
): { line: string; path: string; missing: (typeof START_ERRORS)[number]['missing'] } | undefined {
  for (const line of lines) {
    for (const { form, missing } of START_ERRORS) {
      const path = form.exec(line)?.[1];
      // A bare name that is not found was looked up on PATH, whatever the form.
      if (path) return { line: line.trim(), path, missing: path.includes('/') ? missing : 'path-lookup' };
    }
  }
  return undefined;
}

function explain(facts: MismatchFacts): Mismatch | undefined {
  const found = findStartError(facts.logLines ?? []);
  if (!found) return undefined;
  const container = logContainerOf(facts);
  const image = container?.image ?? facts.imageChange?.to;
  const spec = [...(container?.command ?? []), ...(container?.args ?? [])];
  const where =
    found.missing === 'path-lookup' ? `is on no directory of the image's PATH` : 'does not exist in the image';
  const evidence = [
    `Container ${container?.name ?? 'of the pod'} cannot start: ${found.path} ${where}${image ? ` (${image})` : ''}: "${found.line}".`,
  ];
  if (found.missing === 'file-or-interpreter')
    evidence.push(
      `If ${found.path} is in the image after all, what it needs to load is not: a binary linked against glibc in an Alpine (musl) image, or a script whose #! line names a shell the image lacks, fails the same way.`,
    );
  if (container?.command)
    evidence.push(
      `The pod spec sets command [${spec.join(' ')}]${spec.includes(found.path) ? `, which asks for ${found.path}` : ''}.`,
    );
  else if (container)
    evidence.push(
      `The pod spec sets no command, so ${found.path} comes from the image's own ENTRYPOINT/CMD${container.args ? ` or its args [${container.args.join(' ')}]` : ''}.`,
    );
  if (facts.imageChange)
    evidence.push(
      `The newest rollout${facts.imageChange.revision !== undefined ? ` (revision ${facts.imageChange.revision})` : ''} changed the image from ${facts.imageChange.from} to ${facts.imageChange.to} and kept the command: the new image likely moved or renamed ${found.path}.`,
    );
  evidence.push(
    facts.imageChange
      ? `Point the command at the path ${facts.imageChange.to} uses (docker run --rm --entrypoint ls ${facts.imageChange.to} -l $(dirname ${found.path})), or roll back to ${facts.imageChange.from}.`
      : `Point the command at a path the image has, or fix the image so that it contains ${found.path}.`,
  );
  return {
    id: ID,
    evidence,
    sides: {
      expected: `${container?.command ? 'command' : 'entrypoint'} ${found.path}`,
      actual: `${image ? `image ${image}` : 'the image'} without ${found.path}`,
    },
  };
}

const registry = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/shop/inventory';
const inventory = (command?: string[], image = `${registry}:5.0.0`) =>
  examplePod('inventory', {
    containers: [
      exampleContainer('inventory', {
        image,
        command,
        args: command ? ['--config', '/etc/inventory/config.yaml'] : undefined,
      }),
    ],
  });
const containerd =
  'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/bin/server": stat /app/bin/server: no such file or directory: unknown';

export const MISSING_ENTRYPOINT: Explainer = {
  id: ID,
  compares: 'Container command ↔ image contents',
  means:
    'The command the container starts with names a file the image does not contain, so it fails to start (StartError / CrashLoopBackOff) before the app logs anything.',
  source:
    "The runtime's StartError message (runc/crun via containerd or CRI-O) or the shell's \"not found\", against spec.containers[].command and the rollout's image change",
  explain,
  examples: {
    match: [
      {
        facts: {
          pod: inventory(['/app/bin/server']),
          logLines: [containerd],
          imageChange: { from: `${registry}:4.9.3`, to: `${registry}:5.0.0`, revision: 23 },
        },
        says: [
          /\/app\/bin\/server does not exist in the image \(.*inventory:5\.0\.0\)/,
          /command \[\/app\/bin\/server --config \/etc\/inventory\/config\.yaml\], which asks for \/app\/bin\/server/,
          /revision 23\) changed the image from .*inventory:4\.9\.3 to .*inventory:5\.0\.0/,
          /roll back to .*4\.9\.3/,
        ],
      },
      {
        facts: {
          pod: inventory(['gunicorn', 'inventory.wsgi:application']),
          logLines: [
            'Error: failed to start container "inventory": Error response from daemon: failed to create task for container: exec: "gunicorn": executable file not found in $PATH: unknown',
          ],
        },
        says: [/gunicorn is on no directory of the image's PATH/, /command \[gunicorn inventory\.wsgi:application/],
      },
      {
        facts: {
          pod: inventory(),
          logLines: ['/docker-entrypoint.sh: line 12: /app/start.sh: No such file or directory'],
        },
        says: [
          /\/app\/start\.sh does not exist/,
          /sets no command, so \/app\/start\.sh comes from the image's own ENTRYPOINT\/CMD/,
        ],
      },
      {
        facts: { pod: inventory(), logLines: ['exec /usr/local/bin/inventory: no such file or directory'] },
        says: [
          /\/usr\/local\/bin\/inventory does not exist in the image/,
          /linked against glibc in an Alpine \(musl\) image/,
        ],
      },
    ],
    noMatch: [
      // The app's own missing config file is no start error of the command.
      { pod: inventory(['/app/bin/server']), logLines: ['open /etc/inventory/config.yaml: no such file or directory'] },
      { pod: inventory(['/app/bin/server']), logLines: ['Error: no such file or directory'] },
      { pod: inventory(['/app/bin/server']), logLines: ['{"level":"info","msg":"inventory listening on :8080"}'] },
      { pod: inventory(['/app/bin/server']) },
    ],
  },
};
