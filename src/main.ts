/**
 * The CLI entry: `kubewhy <command> [flags]`. Each command lives in its own module and
 * exports `run(argv)`, resolving to the process exit code.
 */
type CommandModule = { run(argv: string[]): Promise<number> };

const commands: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  serve: {
    summary: 'serve the HTTP API: Alertmanager webhook, incidents, runs, approvals, metrics',
    load: () => import('./cli/serve.ts'),
  },
  diagnose: {
    summary: 'diagnose one alert or incident and print the diagnosis',
    load: () => import('./cli/diagnose.ts'),
  },
  eval: { summary: 'score the agent on every scenario in a folder', load: () => import('./cli/eval.ts') },
  audit: { summary: 'verify the audit log hash chains, or show a run', load: () => import('./cli/audit.ts') },
  'mock-cluster': {
    summary: 'serve an incident snapshot over the Kubernetes API',
    load: () => import('../mock-cluster/cli.ts'),
  },
  'validate-scenarios': {
    summary: 'check every scenario in a folder (default mock-cluster/scenarios)',
    load: () => import('../mock-cluster/validate-cli.ts'),
  },
  capture: {
    summary: 'snapshot a namespace of a live cluster into a scenario folder, redacted',
    load: () => import('./cli/capture.ts'),
  },
  notify: { summary: 'send a test message to each notification destination', load: () => import('./cli/notify.ts') },
  mcp: {
    summary: "serve kubewhy's tools to an MCP client over stdio (writes only proposed)",
    load: () => import('./cli/mcp.ts'),
  },
};

function printUsage(output: NodeJS.WritableStream = process.stdout): void {
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(20)} ${command.summary}`);
  output.write(
    `usage: kubewhy <command> [flags]\n\ncommands:\n${lines.join('\n')}\n\nRun 'kubewhy <command> --help' for a command's flags.\n`,
  );
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    printUsage();
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    const { closestNames, editDistance } = await import('./eval/closest-names.ts');
    const near = closestNames(name, Object.keys(commands), 1).filter(
      (candidate) =>
        editDistance(name, candidate) <= Math.max(2, Math.floor(candidate.length / 3)) || candidate.startsWith(name),
    );
    process.stderr.write(`kubewhy: unknown command '${name}'${near[0] ? `. Did you mean '${near[0]}'?` : ''}\n\n`);
    printUsage(process.stderr);
    return 2;
  }
  const module = await command.load();
  try {
    return await module.run(rest);
  } catch (error) {
    // Mistakes a person can fix (a bad setting, a malformed scenario, a wrong flag) get a message, not a stack trace.
    if (error instanceof Error && EXPECTED_ERRORS.has(error.name)) {
      process.stderr.write(`kubewhy ${name}: ${error.message}\n`);
      return 2;
    }
    if (error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kubewhy ${name}: ${error.message}\nRun 'kubewhy ${name} --help' for its flags.\n`);
      return 2;
    }
    throw error;
  }
}

const EXPECTED_ERRORS = new Set([
  'ConfigError',
  'ScenarioError',
  'BackgroundError',
  'TokenFileError',
  'KubeconfigError',
  'AlertFileError',
  'PricesFileError',
]);

process.exitCode = await main(process.argv.slice(2));
