/**
 * Containers that wait on a dependency before the app starts: an init container or a
 * sidecar looping on `nc -z db 5432`, `pg_isready -h db`, `wait-for-it.sh db:5432`. Such a
 * container is a client like any other: the host it waits on leads to a Service, its
 * endpoints and its backends. Each row reads one waiting idiom from the container's command
 * and args (where the host is written), with commands it must and must not read.
 */

import { isLoopbackHost } from './loopback.ts';

export interface WaitTarget {
  host: string;
  port?: string;
  /** The idiom that named it. */
  via: string;
}

export interface WaitForm {
  id: string;
  means: string;
  pattern: RegExp;
  examples: { match: Array<{ command: string; target: Omit<WaitTarget, 'via'> }>; noMatch: string[] };
}

const HOST = String.raw`([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9])`;

export const WAIT_FORMS: readonly WaitForm[] = [
  {
    id: 'netcat',
    means: 'netcat probing a TCP port until it opens',
    pattern: new RegExp(String.raw`\bnc\s+(?:-[a-zA-Z]+\s+(?:\d+\s+)?)*${HOST}\s+(\d{2,5})\b`),
    examples: {
      match: [
        {
          command: 'until nc -z payments-db 5432; do echo waiting for db; sleep 2; done',
          target: { host: 'payments-db', port: '5432' },
        },
        {
          command: 'while ! nc -zv -w 2 kafka.streaming.svc 9092; do sleep 3; done',
          target: { host: 'kafka.streaming.svc', port: '9092' },
        },
      ],
      noMatch: ['nc -l 8080', 'echo done'],
    },
  },
  {
    id: 'pg-isready',
    means: "PostgreSQL's pg_isready against a host (and port)",
    pattern: new RegExp(
      String.raw`\bpg_isready\b[^;&|]*?(?:-h|--host(?:=|\s))\s*${HOST}(?:[^;&|]*?(?:-p|--port(?:=|\s))\s*(\d{2,5}))?`,
    ),
    examples: {
      match: [
        {
          command: 'until pg_isready -h ledger-pg -p 5433 -U app; do sleep 1; done',
          target: { host: 'ledger-pg', port: '5433' },
        },
      ],
      noMatch: ['pg_isready'],
    },
  },
  {
    id: 'wait-for-it',
    means: 'wait-for-it.sh, dockerize -wait or wait4x naming host:port',
    pattern: new RegExp(
      String.raw`(?:wait-for-it(?:\.sh)?|wait-for|dockerize\s+(?:-[\w-]+\s+\S+\s+)*-wait|wait4x\s+\w+)\s+(?:(?:tcp|https?):\/\/)?${HOST}:(\d{2,5})`,
    ),
    examples: {
      match: [
        {
          command: '/wait-for-it.sh orders-db:3306 --timeout=60 -- echo ready',
          target: { host: 'orders-db', port: '3306' },
        },
        { command: 'dockerize -wait tcp://rabbitmq:5672 -timeout 60s', target: { host: 'rabbitmq', port: '5672' } },
      ],
      noMatch: ['wait-for-it.sh --help'],
    },
  },
  {
    id: 'client-ping',
    means: 'a database or cache client pinged in a loop (redis-cli, mysqladmin, mongosh)',
    pattern: new RegExp(
      String.raw`\b(?:redis-cli|mysqladmin|mongosh|mongo)\b[^;&|]*?(?:-h|--host(?:=|\s))\s*${HOST}(?:[^;&|]*?(?:-p|-P|--port(?:=|\s))\s*(\d{2,5}))?`,
    ),
    examples: {
      match: [
        {
          command: 'until redis-cli -h session-cache -p 6379 ping; do sleep 2; done',
          target: { host: 'session-cache', port: '6379' },
        },
      ],
      noMatch: ['redis-cli ping'],
    },
  },
  {
    id: 'http-poll',
    means: 'curl or wget polling an HTTP endpoint until it answers',
    pattern: new RegExp(String.raw`\b(?:curl|wget)\b[^;&|]*?https?:\/\/${HOST}(?::(\d{2,5}))?`),
    examples: {
      match: [
        {
          command: 'until curl -sf http://config-server:8888/actuator/health; do sleep 5; done',
          target: { host: 'config-server', port: '8888' },
        },
      ],
      noMatch: ['curl -sf https://'],
    },
  },
  {
    id: 'name-lookup',
    means: 'a loop waiting for a name to resolve (nslookup, getent hosts, dig)',
    pattern: new RegExp(String.raw`\b(?:nslookup|getent\s+hosts|dig\s+(?:\+\w+\s+)*|host)\s+${HOST}`),
    examples: {
      match: [
        {
          command: 'until nslookup orders-db.shop.svc.cluster.local; do echo waiting for orders-db; sleep 2; done',
          target: { host: 'orders-db.shop.svc.cluster.local' },
        },
      ],
      noMatch: ['echo waiting'],
    },
  },
];

/** The dependency a container's command or args wait on, if they wait on one. */
export function readWaitTarget(commandLine: string): WaitTarget | undefined {
  for (const form of WAIT_FORMS) {
    const match = form.pattern.exec(commandLine);
    if (match?.[1] && !isLoopbackHost(match[1]))
      return { host: match[1], ...(match[2] ? { port: match[2] } : {}), via: form.id };
  }
  return undefined;
}
