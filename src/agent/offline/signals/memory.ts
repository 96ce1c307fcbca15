/**
 * Log lines in which a process says it ran out of memory: its runtime's heap limit or an
 * allocation the system refused. The kernel's OOM kill shows in the container status, not here.
 */
import type { LogSignal } from './types.ts';

export const MEMORY_SIGNALS: readonly LogSignal[] = [
  {
    id: 'out-of-memory',
    verdict: 'oom',
    pattern: /out of memory/i,
    means: 'A process or runtime reports that memory ran out.',
    source:
      'Runtimes and tools in general; Go (fatal error: runtime: out of memory), Node (JavaScript heap out of memory), PostgreSQL (ERROR: out of memory)',
    examples: {
      match: [
        'fatal error: runtime: out of memory',
        'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
      ],
      noMatch: ["OOM command not allowed when used memory > 'maxmemory'."],
    },
  },
  {
    id: 'jvm-out-of-memory',
    verdict: 'oom',
    pattern: /OutOfMemoryError/i,
    means: 'The JVM exhausted its heap, metaspace or native threads.',
    source: 'Java: java.lang.OutOfMemoryError: Java heap space / Metaspace / GC overhead limit exceeded',
    examples: {
      match: ['Exception in thread "main" java.lang.OutOfMemoryError: Java heap space'],
      noMatch: ['GC(42) Pause Young (Normal) (G1 Evacuation Pause) 512M->128M(1024M) 12.3ms'],
    },
  },
  {
    id: 'dotnet-out-of-memory',
    verdict: 'oom',
    pattern: /System\.OutOfMemoryException/,
    means: 'The .NET runtime could not allocate memory.',
    source: ".NET: System.OutOfMemoryException: Exception of type 'System.OutOfMemoryException' was thrown.",
    examples: {
      match: [
        "Unhandled exception. System.OutOfMemoryException: Exception of type 'System.OutOfMemoryException' was thrown.",
      ],
      noMatch: ['GC heap hard limit set to 400MB (75% of container limit)'],
    },
  },
  {
    id: 'allocation-refused',
    verdict: 'oom',
    pattern:
      /Cannot allocate memory|memory allocation of \d+ bytes failed|Allowed memory size of \d+ bytes exhausted|failed to allocate memory/i,
    means: 'The system or the runtime refused an allocation: the process is at its memory limit.',
    source:
      'ENOMEM (Cannot allocate memory), Rust (memory allocation of N bytes failed), PHP (Allowed memory size of N bytes exhausted), Ruby (NoMemoryError: failed to allocate memory)',
    examples: {
      match: [
        'fork: Cannot allocate memory',
        'memory allocation of 1073741824 bytes failed',
        'PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in /var/www/html/vendor/laravel/framework/src/Illuminate/Collections/Arr.php on line 23',
      ],
      noMatch: ['allocated 512 MiB buffer pool'],
    },
  },
  {
    id: 'python-memory-error',
    verdict: 'oom',
    pattern: /MemoryError\b/i,
    means: 'Python could not allocate memory.',
    source: 'CPython: MemoryError',
    examples: {
      match: [
        'MemoryError',
        'numpy.core._exceptions._ArrayMemoryError: Unable to allocate 7.45 GiB for an array with shape (1000000000,) and data type float64',
      ],
      noMatch: ['memory usage 812Mi of 1Gi'],
    },
  },
];
