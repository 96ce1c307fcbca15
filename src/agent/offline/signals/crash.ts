/**
 * Log lines in which the process fails on its own, whatever the language: a fatal message,
 * a file or permission the container lacks, a bad flag or setting, a binary that cannot
 * run. Language-specific crashes are in crash-runtimes.ts.
 */
import type { LogSignal } from './types.ts';

export const CRASH_SIGNALS: readonly LogSignal[] = [
  {
    id: 'os-permission-denied',
    verdict: 'app-crash',
    pattern: /Operation not permitted|Permission denied|EACCES|EPERM/i,
    means:
      'The process was refused a file, port or system call: the image, securityContext or volume permissions do not fit.',
    source:
      'EACCES and EPERM as runtimes print them: open /x: permission denied (Go), EACCES: permission denied (Node), [Errno 13] Permission denied (Python)',
    examples: {
      match: [
        "Error: EACCES: permission denied, open '/app/logs/app.log'",
        'listen tcp :80: bind: permission denied',
        "PermissionError: [Errno 13] Permission denied: '/data/cache'",
      ],
      noMatch: ['permissions of /data set to 0750'],
    },
  },
  {
    id: 'read-only-filesystem',
    verdict: 'app-crash',
    pattern: /Read-only file system/i,
    means:
      'The process writes where the container filesystem is read-only (readOnlyRootFilesystem or a read-only mount).',
    source: 'EROFS: open /x: read-only file system',
    examples: {
      match: ["OSError: [Errno 30] Read-only file system: '/app/tmp'"],
      noMatch: ['mounted /config read-only as expected'],
    },
  },
  {
    id: 'disk-full',
    verdict: 'app-crash',
    pattern: /No space left on device/i,
    means: 'The volume or node disk the process writes to is full.',
    source: 'ENOSPC: write /x: no space left on device',
    examples: {
      match: ['write /var/lib/app/wal/000042.log: no space left on device'],
      noMatch: ['disk usage 41% of 20Gi'],
    },
  },
  {
    id: 'fatal-message',
    verdict: 'app-crash',
    pattern: /FATAL|fatal error/i,
    means: 'The process reports a fatal error of its own.',
    source: 'Log levels and runtimes in general: FATAL, PHP Fatal error, Go fatal error',
    examples: {
      match: [
        'level=fatal msg="cannot start: config file /etc/app/config.yaml unreadable"',
        'PHP Fatal error:  Uncaught Error: Call to undefined function mb_strlen()',
      ],
      noMatch: ['level=error msg="retrying request"'],
    },
  },
  {
    id: 'native-crash',
    verdict: 'app-crash',
    pattern: /segmentation fault|SIGSEGV/i,
    means: 'The process crashed on an invalid memory access.',
    source: 'The kernel signal SIGSEGV as shells and runtimes report it',
    examples: {
      match: [
        'Segmentation fault (core dumped)',
        '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5b6c]',
      ],
      noMatch: ['received SIGTERM, shutting down'],
    },
  },
  {
    id: 'exec-failed',
    verdict: 'app-crash',
    pattern: /exec format error|exec: .*not found|command not found/i,
    means: 'The container command cannot run: a missing binary or one built for another CPU architecture.',
    source:
      'exec(2) failures: exec format error (wrong architecture), sh: x: command not found, exec: "x": executable file not found in $PATH',
    examples: {
      match: ['exec /usr/local/bin/server: exec format error', '/bin/sh: 1: gunicorn: command not found'],
      noMatch: ['exec: starting /usr/local/bin/server'],
    },
  },
  {
    id: 'missing-file',
    verdict: 'app-crash',
    pattern: /no such file or directory/i,
    means: 'A file the process needs is not where it looks: a missing mount, config file or binary.',
    source: 'ENOENT: open /x: no such file or directory',
    examples: {
      match: [
        'open /etc/app/config.yaml: no such file or directory',
        "Error: ENOENT: no such file or directory, open '/app/config/settings.json'",
      ],
      noMatch: ['loaded /etc/app/config.yaml'],
    },
  },
  {
    id: 'bad-arguments',
    verdict: 'app-crash',
    pattern:
      /unknown (flag|option|command)|flag provided but not defined|invalid (argument|option|configuration|value)/i,
    means: 'The process rejects its arguments or configuration: a flag or setting this version does not know.',
    source:
      'Argument parsers: Go flag (flag provided but not defined: -x), cobra (unknown flag: --x), argparse, getopt',
    examples: {
      match: ['flag provided but not defined: -metrics-addr', 'Error: unknown flag: --enable-profiling'],
      noMatch: ['flags: --port=8080 --log-level=info'],
    },
  },
  {
    id: 'missing-setting',
    verdict: 'app-crash',
    pattern:
      /is not set|must be set|required (environment variable|setting|config)|missing (required )?(environment variable|env|config)/i,
    means: 'A required setting or environment variable is missing.',
    source: 'Application start-up checks: DATABASE_URL is not set, missing required environment variable',
    examples: {
      match: [
        'Error: environment variable DATABASE_URL is not set',
        'config: missing required environment variable STRIPE_API_KEY',
      ],
      noMatch: ['DATABASE_URL set from secret orders-db'],
    },
  },
  {
    id: 'child-exited',
    verdict: 'app-crash',
    pattern: /exited with (code|status) [1-9]/i,
    means: 'A process the container runs exited with a failure code.',
    source: 'Process supervisors and shells: worker exited with code 1',
    examples: {
      match: ['[supervisor] worker exited with code 1'],
      noMatch: ['[supervisor] worker exited with code 0'],
    },
  },
  {
    id: 'port-in-use',
    verdict: 'app-crash',
    pattern: /EADDRINUSE|address already in use|Port \d+ was already in use/i,
    means:
      'The port the process wants to listen on is taken: two processes in the pod, or a port clash with hostNetwork.',
    source:
      'EADDRINUSE: Go (bind: address already in use), Node (listen EADDRINUSE), Spring Boot (Web server failed to start. Port 8080 was already in use.)',
    examples: {
      match: [
        'Error: listen EADDRINUSE: address already in use :::3000',
        'listen tcp :8080: bind: address already in use',
      ],
      noMatch: ['listening on :8080'],
    },
  },
  {
    id: 'startup-check-failed',
    verdict: 'app-crash',
    pattern:
      /bootstrap checks? fail(ed|ure)|node validation exception|is too low, increase to at least|preflight check(s)? failed/i,
    means:
      'The process checked its environment at start (kernel settings, file limits) and refused to run: the node or the pod spec must change, not the code.',
    source:
      'Elasticsearch/OpenSearch bootstrap checks (max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]), kubeadm-style preflight checks',
    examples: {
      match: [
        'bootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]',
        'ERROR: [1] bootstrap checks failed',
      ],
      noMatch: ['bound or publishing to a non-loopback address, enforcing bootstrap checks'],
    },
  },
];
