/**
 * Lines that say the process ran out of something its node gives all pods together
 * (process ids, threads, file handles), as opposed to its own memory limit: a crash with
 * one of these on a node under pressure is the node's failure, not the app's.
 */
import type { Row } from './types.ts';

export const NODE_EXHAUSTION: readonly Row[] = [
  {
    id: 'jvm-native-thread',
    pattern: /unable to create (new )?native thread/i,
    means: 'The JVM could not start a thread: the node (or the pod) is out of process ids, or threads are capped.',
    source:
      'OpenJDK: java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached',
    examples: {
      match: [
        'java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached',
      ],
      noMatch: ['java.lang.OutOfMemoryError: Java heap space'],
    },
  },
  {
    id: 'fork-eagain',
    pattern: /fork: (retry: )?(Resource temporarily unavailable|Cannot allocate memory)|fork\(\) failed .*\((11|12): /i,
    means: 'A process could not fork a child: the node is out of process ids (EAGAIN) or memory.',
    source:
      'bash (fork: retry: Resource temporarily unavailable), nginx (fork() failed while spawning "worker process" (11: Resource temporarily unavailable))',
    examples: {
      match: [
        'bash: fork: retry: Resource temporarily unavailable',
        'fork() failed while spawning "worker process" (11: Resource temporarily unavailable)',
      ],
      noMatch: ['forked worker process 42'],
    },
  },
  {
    id: 'pthread-create-failed',
    pattern:
      /pthread_create failed|failed to create new OS thread|runtime: failed to create new OS thread|can't start new thread/i,
    means: 'A runtime could not create an OS thread: the node is out of process ids or the pod hit its pids limit.',
    source:
      "Go runtime (runtime: failed to create new OS thread (have 23 already; errno=11)), glibc (pthread_create failed), Python (RuntimeError: can't start new thread)",
    examples: {
      match: [
        'runtime: failed to create new OS thread (have 2049 already; errno=11)',
        "RuntimeError: can't start new thread",
      ],
      noMatch: ['started 12 worker threads'],
    },
  },
];

const ANY_NODE_EXHAUSTION = new RegExp(NODE_EXHAUSTION.map((row) => `(?:${row.pattern.source})`).join('|'), 'i');

export function isNodeExhaustion(line: string): boolean {
  return ANY_NODE_EXHAUSTION.test(line);
}
