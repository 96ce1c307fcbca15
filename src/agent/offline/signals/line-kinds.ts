/**
 * What kind of line a log line is, whatever it says: one that reports an error, one that
 * reports a problem the process means to survive (a warning, a retry), or a frame of a
 * stack trace. readLogSignals weighs verdicts by these kinds.
 */
import type { Row } from './types.ts';

export type LineKind = 'error' | 'soft' | 'stack-frame';

export interface LineKindRow extends Row {
  readonly kind: LineKind;
}

export const LINE_KINDS: readonly LineKindRow[] = [
  {
    id: 'error-words',
    kind: 'error',
    pattern:
      /\b(error|err|fatal|panic|exception|fail(ed|ure)?|refused|denied|timeout|timed out|expired|unable|cannot|could not|traceback|killed)\b/i,
    means: 'The line says in words that something went wrong.',
    source: 'Log messages in general',
    examples: {
      match: ['failed to connect to database after 5 attempts', 'worker killed by signal 9'],
      noMatch: ['request completed in 12ms'],
    },
  },
  {
    id: 'error-errno-codes',
    kind: 'error',
    pattern: /ECONN|ENOTFOUND|ETIMEDOUT/i,
    means: 'The line carries a socket error code.',
    source: 'POSIX errno names as Node and libuv print them: ECONNREFUSED, ENOTFOUND, ETIMEDOUT',
    examples: { match: ['connect ECONNREFUSED 10.96.12.7:6379'], noMatch: ['connected to 10.96.12.7:6379'] },
  },
  {
    id: 'error-level',
    kind: 'error',
    pattern: /level=(error|fatal)|"level":"(error|fatal)"|\[(ERROR|FATAL|CRIT)\]/i,
    means: 'The logger marked the line as an error.',
    source: 'logfmt (level=error), JSON loggers ("level":"error"), bracketed levels ([ERROR])',
    examples: {
      match: ['level=error msg="upstream closed"', '{"level":"fatal","msg":"cannot start"}', '[ERROR] worker stopped'],
      noMatch: ['level=info msg="upstream ready"'],
    },
  },
  {
    id: 'error-klog',
    kind: 'error',
    pattern: /\bE\d{4} /i,
    means: 'A klog line at error severity.',
    source: 'Kubernetes klog header: E1129 09:58:02.114512       1 controller.go:42] ...',
    examples: {
      match: ['E1129 09:58:02.114512       1 reflector.go:147] watch of *v1.Pod ended'],
      noMatch: ['I1129 09:58:02.114512       1 main.go:12] starting'],
    },
  },
  {
    id: 'soft-level-word',
    kind: 'soft',
    pattern: /\b(WARN(ING)?|INFO|DEBUG|NOTICE)\b/i,
    means: 'The logger marked the line as a warning or information, not a failure.',
    source: 'Log levels printed as words: WARN, INFO, DEBUG, NOTICE',
    examples: {
      match: ['2026-11-29T09:58:01Z WARN metrics push failed: connection refused'],
      noMatch: ['2026-11-29T09:58:01Z ERROR metrics push failed'],
    },
  },
  {
    id: 'soft-level-field',
    kind: 'soft',
    pattern: /"level":"(warn|warning|info|debug)"|level=(warn|warning|info|debug)/i,
    means: 'A structured logger marked the line as a warning or information.',
    source: 'logfmt (level=warn) and JSON loggers ("level":"warn")',
    examples: {
      match: ['{"level":"warn","msg":"broker handshake failed"}', 'level=warning msg="slow query"'],
      noMatch: ['{"level":"error","msg":"broker handshake failed"}'],
    },
  },
  {
    id: 'soft-retry',
    kind: 'soft',
    pattern: /will retry|retrying|retry in/i,
    means: 'The process says it will try again: it means to survive the problem.',
    source: 'Client retry loops: "retrying in 5s", "will retry"',
    examples: {
      match: ['redis connection lost, retrying in 2s', 'upload failed (will retry)'],
      noMatch: ['upload failed after 5 retries, giving up'],
    },
  },
  {
    id: 'soft-klog',
    kind: 'soft',
    pattern: /\bW\d{4} /i,
    means: 'A klog line at warning severity.',
    source: 'Kubernetes klog header: W1129 09:58:02.114512       1 warnings.go:70] ...',
    examples: {
      match: ['W1129 09:58:02.114512       1 warnings.go:70] v1 Endpoints is deprecated'],
      noMatch: ['E1129 09:58:02.114512       1 reflector.go:147] watch ended'],
    },
  },
  {
    id: 'frame-indented-at',
    kind: 'stack-frame',
    pattern: /^\s+at\s/,
    means: 'A frame of a Java, JavaScript or .NET stack trace.',
    source: 'JVM, V8 and .NET stack traces:     at com.acme.Orders.load(Orders.java:42)',
    examples: {
      match: [
        '    at Parser.parseErrorMessage (/app/node_modules/pg-protocol/dist/parser.js:287:98)',
        '\tat org.postgresql.Driver.connect(Driver.java:297)',
      ],
      noMatch: ['at 10:00 the job started'],
    },
  },
  {
    id: 'frame-python',
    kind: 'stack-frame',
    pattern: /^\s+File "/,
    means: 'A frame of a Python traceback.',
    source: 'CPython tracebacks:   File "/app/report.py", line 88, in <module>',
    examples: {
      match: ['  File "/app/report.py", line 88, in upload_report'],
      noMatch: ['File "/app/report.py" written'],
    },
  },
  {
    id: 'frame-goroutine',
    kind: 'stack-frame',
    pattern: /^\s*goroutine \d+/,
    means: 'The header of a goroutine in a Go panic dump.',
    source: 'Go runtime: goroutine 1 [running]:',
    examples: { match: ['goroutine 1 [running]:'], noMatch: ['started 12 goroutines'] },
  },
  {
    id: 'frame-source-position',
    kind: 'stack-frame',
    pattern: /^\s+\S+\.(go|py|rb|java|kt|js|ts):\d+/,
    means: 'An indented source position of a stack frame.',
    source: 'Go panic dumps (\t/app/main.go:42 +0x1d), Ruby backtraces',
    examples: { match: ['        /app/internal/server/server.go:118 +0x2f4'], noMatch: ['loaded /app/config.yaml'] },
  },
  {
    id: 'frame-elided',
    kind: 'stack-frame',
    pattern: /^\s*\.\.\. \d+ more/,
    means: 'The line that stands for frames a Java trace left out.',
    source: 'JVM stack traces: ... 42 more',
    examples: { match: ['\t... 42 more'], noMatch: ['and 42 more pods pending'] },
  },
  {
    id: 'frame-tab-indented',
    kind: 'stack-frame',
    pattern: /^\t/,
    means: 'A tab-indented continuation line: part of a trace or of a message above it.',
    source: 'Ruby backtraces (\tfrom /app/x.rb:12), Go panic dumps',
    examples: {
      match: [
        "\tfrom /usr/local/bundle/gems/activerecord-7.1.4/lib/active_record/railtie.rb:60:in `block in <class:Railtie>'",
      ],
      noMatch: ['from now on the cache is warm'],
    },
  },
  {
    id: 'frame-blank',
    kind: 'stack-frame',
    pattern: /^\s*$/,
    means: 'A blank line: it says nothing about what happened last.',
    source: 'Any log: empty lines and lines of spaces between messages',
    examples: { match: ['', '   '], noMatch: ['.'] },
  },
];

/** Whether the line is of the kind any of its rows describe. */
export function isLineOfKind(kind: LineKind, line: string): boolean {
  return ANY_OF_KIND[kind].test(line);
}

/** Each kind's rows as one pattern: a log is read line by line, and one test per kind is quicker than one per row. */
const ANY_OF_KIND: Record<LineKind, RegExp> = {
  error: anyOf(LINE_KINDS.filter((row) => row.kind === 'error')),
  soft: anyOf(LINE_KINDS.filter((row) => row.kind === 'soft')),
  'stack-frame': anyOf(LINE_KINDS.filter((row) => row.kind === 'stack-frame')),
};

function anyOf(rows: readonly Row[]): RegExp {
  const flags = new Set(rows.map((row) => row.pattern.flags));
  // Rows of one kind share their flags, so the union matches exactly what some row matches.
  if (flags.size > 1) throw new Error(`line kind rows mix flags: ${[...flags].join(', ')}`);
  return new RegExp(rows.map((row) => `(?:${row.pattern.source})`).join('|'), [...flags][0]);
}
