import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MEMORY_SETTING } from './oom.ts';
import { SLOW_HEALTH, STARTUP_TIME } from './probe-failure.ts';

/** The patterns that pull a specific fact out of a log or a spec, each held to lines it must and must not match. */
const PATTERNS: { name: string; pattern: RegExp; match: string[]; noMatch: string[] }[] = [
  {
    name: 'STARTUP_TIME (how long an app takes to start)',
    pattern: STARTUP_TIME,
    match: [
      'Started StockServiceApplication in 47.3 seconds (process running for 49.1)',
      'Server startup in 52000 ms',
      'HTTP server listening on :8080, ready in 61s',
      'Keycloak 24.0.4 on JVM started in 38.112s',
    ],
    noMatch: ['Starting StockServiceApplication using Java 21', 'processed 412 orders in 3 batches'],
  },
  {
    name: 'SLOW_HEALTH (a health check that says how long it took)',
    pattern: SLOW_HEALTH,
    match: [
      'Health contributor fxRates (fxRates) took 2759ms to respond',
      'readiness check took 3.2s',
      'probe handler exceeded 1500 ms',
    ],
    noMatch: ['Health contributor fxRates is UP', 'pushed 412 offers to partner=initech in 3.2s'],
  },
  {
    name: 'MEMORY_SETTING (a runtime memory ceiling in env or args)',
    pattern: MEMORY_SETTING,
    match: ['-Xmx1536m', '-XX:MaxRAMPercentage=75.0', '--max-old-space-size=4096', 'GOMEMLIMIT', 'JAVA_TOOL_OPTIONS'],
    noMatch: ['-XX:+UseG1GC', 'LOG_LEVEL', '--port=8080'],
  },
];

for (const { name, pattern, match, noMatch } of PATTERNS) {
  test(`${name} matches its examples and none of its near misses`, () => {
    for (const line of match) assert.match(line, pattern);
    for (const line of noMatch) assert.doesNotMatch(line, pattern);
  });
}
