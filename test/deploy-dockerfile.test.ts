/**
 * deploy/Dockerfile, read as a specification (it needs a registry to pull its base images
 * from; test/image-build.test.ts builds and runs the image made without one): a multi-stage
 * build on Node 24 base images pinned by digest, production dependencies only, the built
 * package as `npm pack` makes it, a non-root user that matches the chart, and an exec-form
 * entry point so that SIGTERM reaches Node.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { repositoryRoot } from './fixtures/helm-support/helm.ts';

interface Instruction {
  keyword: string;
  argument: string;
}

interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Splits a Dockerfile into stages of instructions, joining continued lines and dropping comments. */
function parseDockerfile(text: string): { arguments: Map<string, string>; stages: Stage[] } {
  const logical: string[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    if (line.trimEnd().endsWith('\\')) {
      pending += `${line.trimEnd().slice(0, -1)} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  const globalArguments = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical.filter(Boolean)) {
    const [, keyword = '', argument = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [image = '', , name] = argument.split(/\s+/);
      const resolved = image.replace(
        /^\$\{(\w+)\}$/,
        (_match, variable: string) => globalArguments.get(variable) ?? '',
      );
      stages.push({ from: resolved, ...(name ? { name } : {}), instructions: [] });
    } else if (stages.length === 0 && upper === 'ARG') {
      const [variable = '', value = ''] = argument.split('=');
      globalArguments.set(variable, value);
    } else {
      stages.at(-1)?.instructions.push({ keyword: upper, argument });
    }
  }
  return { arguments: globalArguments, stages };
}

function findAll(stage: Stage, keyword: string): string[] {
  return stage.instructions
    .filter((instruction) => instruction.keyword === keyword)
    .map((instruction) => instruction.argument);
}

function parseExecForm(argument: string | undefined, keyword: string): string[] {
  assert.ok(argument, `no ${keyword}`);
  const value: unknown = JSON.parse(argument);
  assert.ok(
    Array.isArray(value) && value.every((item) => typeof item === 'string'),
    `${keyword} must be in exec form (a JSON array), so that no shell sits between the runtime and Node: ${argument}`,
  );
  return value as string[];
}

let stages: Stage[] = [];
let runtime: Stage;

before(async () => {
  stages = parseDockerfile(await readFile(join(repositoryRoot, 'deploy', 'Dockerfile'), 'utf8')).stages;
  const last = stages.at(-1);
  assert.ok(last, 'the Dockerfile has no FROM');
  runtime = last;
});

describe('the build', () => {
  test('has a dependencies stage and a separate runtime stage, both on Node 24', () => {
    assert.ok(stages.length >= 2, `${stages.length} stage(s)`);
    for (const stage of stages) assert.match(stage.from, /node:24|nodejs24/, `${stage.from} is not a Node 24 image`);
    assert.match(runtime.from, /distroless\/nodejs24|node:24[\w.-]*slim/, 'the runtime image is slim or distroless');
  });

  test('installs production dependencies only, from the lock file', () => {
    const builder = stages.find(
      (stage) => stage !== runtime && findAll(stage, 'RUN').some((command) => /npm ci\b/.test(command)),
    );
    assert.ok(builder, 'no stage runs npm ci');
    const install = findAll(builder, 'RUN').find((command) => /npm ci\b/.test(command)) ?? '';
    assert.match(install, /--omit=dev\b/);
    assert.match(install, /--omit=optional\b/);
    assert.ok(
      findAll(builder, 'COPY').some((source) => /package\.json/.test(source) && /package-lock\.json/.test(source)),
      'the lock file is copied before npm ci',
    );
    assert.ok(
      !findAll(runtime, 'RUN').some((command) => /npm (ci|install)/.test(command)),
      'the runtime stage installs nothing',
    );
  });

  test('pins every base image by digest', () => {
    for (const stage of stages)
      assert.match(stage.from, /@sha256:[0-9a-f]{64}$/, `${stage.from} is not pinned by digest`);
  });

  test('packs kubewhy with npm pack, which builds dist/ and keeps what package.json lists', () => {
    const packer = stages.find((stage) => findAll(stage, 'RUN').some((command) => /npm pack\b/.test(command)));
    assert.ok(packer, 'no stage runs npm pack');
    assert.notEqual(packer, runtime);
  });

  test('the runtime copies the dependencies and the packed package from the build stages, and nothing from the context', () => {
    const copies = findAll(runtime, 'COPY');
    assert.ok(
      copies.some((copy) => copy.startsWith(`--from=${stages[0]?.name}`) && copy.includes('/app/node_modules')),
      'node_modules comes from the dependencies stage',
    );
    const packer = stages.find((stage) => findAll(stage, 'RUN').some((command) => /npm pack\b/.test(command)));
    assert.ok(
      copies.some((copy) => copy.startsWith(`--from=${packer?.name}`)),
      'the package comes from the stage that packs it',
    );
    assert.deepEqual(
      copies.filter((copy) => !copy.startsWith('--from=')),
      [],
    );
  });

  test('the build context filter lets in only what the build stages copy, and of the scenarios only the demo one', async () => {
    const ignore = await readFile(join(repositoryRoot, 'deploy', 'Dockerfile.dockerignore'), 'utf8');
    const lines = ignore.split('\n').filter((line) => line && !line.startsWith('#'));
    assert.equal(lines[0], '**', 'everything is excluded first');
    assert.deepEqual(lines.filter((line) => line.startsWith('!')).sort(), [
      '!bin/**',
      '!mock-cluster/**',
      '!mock-cluster/scenarios/checkout-secret-rotation/**',
      '!package-lock.json',
      '!package.json',
      '!src/**',
      '!tsconfig.build.json',
      '!tsconfig.json',
    ]);
    assert.ok(
      lines.indexOf('mock-cluster/scenarios/**') < lines.indexOf('!mock-cluster/scenarios/checkout-secret-rotation/**'),
      'the other scenarios are excluded before the demo one is let in',
    );
  });
});

describe('the runtime', () => {
  test('runs as the non-root user the chart expects', async () => {
    const [user] = findAll(runtime, 'USER');
    assert.ok(user, 'no USER in the runtime stage');
    const [uid, gid] = user.split(':');
    assert.ok(uid && !['0', 'root'].includes(uid), `USER ${user} is root`);
    const values = parse(await readFile(join(repositoryRoot, 'charts', 'kubewhy', 'values.yaml'), 'utf8')) as {
      securityContext: { runAsUser: number; runAsGroup: number };
    };
    assert.equal(Number(uid), values.securityContext.runAsUser);
    assert.equal(Number(gid), values.securityContext.runAsGroup);
  });

  test('starts `node /app/bin/kubewhy.js serve` in exec form, so SIGTERM reaches Node directly and the built JavaScript runs', () => {
    const entrypoint = parseExecForm(findAll(runtime, 'ENTRYPOINT').at(-1), 'ENTRYPOINT');
    const command = parseExecForm(findAll(runtime, 'CMD').at(-1), 'CMD');
    assert.match(entrypoint[0] ?? '', /(^|\/)node$/);
    assert.ok(![...entrypoint, ...command].some((part) => /^(\/bin\/)?(sh|bash)$/.test(part)), 'no shell wraps Node');
    assert.deepEqual([...entrypoint.slice(1), ...command], ['/app/bin/kubewhy.js', 'serve']);
    assert.ok(![...entrypoint, ...command].some((part) => part.endsWith('.ts')), 'no TypeScript at run time');
  });

  test('listens on all interfaces at 8080 and keeps SQLite where the chart mounts its volume', () => {
    const environment = findAll(runtime, 'ENV').join(' ');
    assert.match(environment, /KUBEWHY_HOST=0\.0\.0\.0/);
    assert.match(environment, /KUBEWHY_PORT=8080/);
    assert.match(environment, /KUBEWHY_DATA_DIR=\/var\/lib\/kubewhy/);
    assert.deepEqual(findAll(runtime, 'EXPOSE'), ['8080']);
  });

  test('has a health check on /healthz that needs no shell', () => {
    const [healthcheck] = findAll(runtime, 'HEALTHCHECK');
    assert.ok(healthcheck);
    const command = healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim();
    assert.match(parseExecForm(command, 'HEALTHCHECK CMD').join(' '), /\/healthz/);
  });
});
