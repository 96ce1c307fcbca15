/**
 * Passwords given on the command line of known tools, whose short flags say nothing by
 * name: `mysql -pX`, `redis-cli -a X`, `curl -u user:X`, `sshpass -p X`, `docker login -p X`.
 * Works on a command as text (a log line, a probe's `sh -c` string) and as an argv array
 * (a container's `command` and `args`).
 */
import { isNonSecretValue } from './names.ts';
import type { SpanSet } from './spans.ts';

interface SecretFlag {
  flag: string;
  /** `-pX` (attached), `-p X` (spaced) or both. */
  form: 'attached' | 'spaced' | 'both';
  /** The whole value, or only what follows its first colon (`user:password`). */
  secret: 'whole' | 'after-colon';
}

interface CommandRule {
  id: string;
  /** The program's name (a path's last part), as it appears in the command. */
  program: RegExp;
  flags: SecretFlag[];
  /** A word the command must also hold for the flags to mean a password (`docker login`, not `docker run -p`). */
  requires?: string;
  examples: string[];
}

export const COMMAND_RULES: CommandRule[] = [
  {
    id: 'mysql-password',
    program:
      /^(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlslap|mysqlpump|mariadb|mariadb-dump|mariadb-admin)$/,
    flags: [{ flag: '-p', form: 'attached', secret: 'whole' }],
    examples: ['mysql -h db -uroot -pCanaryMysql1 shop'],
  },
  {
    id: 'redis-cli-password',
    program: /^(?:redis-cli|valkey-cli|keydb-cli)$/,
    flags: [{ flag: '-a', form: 'both', secret: 'whole' }],
    examples: ['redis-cli -h cache -a CanaryRedis2 ping'],
  },
  {
    id: 'curl-user',
    program: /^curl$/,
    flags: [
      { flag: '-u', form: 'both', secret: 'after-colon' },
      { flag: '--user', form: 'spaced', secret: 'after-colon' },
      { flag: '--user=', form: 'attached', secret: 'after-colon' },
      { flag: '-U', form: 'both', secret: 'after-colon' },
      { flag: '--proxy-user', form: 'spaced', secret: 'after-colon' },
    ],
    examples: ['curl -s -u admin:CanaryCurl3 https://es:9200/_cluster/health'],
  },
  {
    id: 'sshpass-password',
    program: /^sshpass$/,
    flags: [{ flag: '-p', form: 'both', secret: 'whole' }],
    examples: ['sshpass -p CanarySsh4 ssh deploy@host'],
  },
  {
    id: 'mongo-password',
    program: /^(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)$/,
    flags: [{ flag: '-p', form: 'both', secret: 'whole' }],
    examples: ['mongosh -u admin -p CanaryMongo5 --authenticationDatabase admin'],
  },
  {
    id: 'registry-login-password',
    program: /^(?:docker|podman|nerdctl|helm|oras|skopeo|buildah)$/,
    flags: [{ flag: '-p', form: 'both', secret: 'whole' }],
    requires: 'login',
    examples: ['docker login -u ci -p CanaryDocker6 registry.example'],
  },
  {
    id: 'sqlcmd-password',
    program: /^(?:sqlcmd|bcp|osql)$/,
    flags: [{ flag: '-P', form: 'both', secret: 'whole' }],
    examples: ['sqlcmd -S db -U sa -P CanarySql7 -Q "select 1"'],
  },
  {
    id: 'ldap-bind-password',
    program: /^(?:ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd)$/,
    flags: [{ flag: '-w', form: 'both', secret: 'whole' }],
    examples: ['ldapsearch -x -D cn=admin -w CanaryLdap8 -b dc=example'],
  },
];

/** A quick look for any program name of the table, before a line is split into words. */
const ANY_PROGRAM =
  /(?:^|[\s/"'`;|&(])(?:mysql\w*|mariadb[\w-]*|redis-cli|valkey-cli|keydb-cli|curl|sshpass|mongo\w*|docker|podman|nerdctl|helm|oras|skopeo|buildah|sqlcmd|bcp|osql|ldap\w+)(?=[\s"'`;]|$)/m;
/** Words that end one command in a shell line. */
const COMMAND_SEPARATORS = new Set(['|', '||', '&&', ';', '&']);

/** Where a secret lies: the word's index in the command, and the range inside that word. */
export interface WordSecret {
  word: number;
  start: number;
  end: number;
}

function programName(word: string): string {
  return (
    word
      .replace(/^["'`(]+|["'`;)]+$/g, '')
      .split('/')
      .at(-1) ?? ''
  );
}

/** The secrets in one command given as words. */
export function findCommandSecrets(words: string[]): WordSecret[] {
  const found: WordSecret[] = [];
  for (let index = 0; index < words.length; index++) {
    const name = programName(words[index] ?? '');
    const rule = COMMAND_RULES.find((candidate) => candidate.program.test(name));
    if (!rule) continue;
    let end = index + 1;
    while (end < words.length && !COMMAND_SEPARATORS.has(words[end] ?? '')) end++;
    if (rule.requires && !words.slice(index + 1, end).includes(rule.requires)) continue;
    for (let position = index + 1; position < end; position++) {
      const secret = findFlagSecret(rule, words, position);
      if (secret) found.push(secret);
    }
  }
  return found;
}

function findFlagSecret(rule: CommandRule, words: string[], position: number): WordSecret | undefined {
  const word = words[position] ?? '';
  for (const { flag, form, secret } of rule.flags) {
    if (word === flag && form !== 'attached' && position + 1 < words.length)
      return secretRange(words[position + 1] ?? '', position + 1, 0, secret);
    if (word.startsWith(flag) && word.length > flag.length && form !== 'spaced')
      return secretRange(word, position, flag.length, secret);
  }
  return undefined;
}

/** The secret part of `word` from `offset`, without surrounding quotes; none for a reference such as `$MYSQL_PASSWORD`. */
function secretRange(
  word: string,
  index: number,
  offset: number,
  secret: SecretFlag['secret'],
): WordSecret | undefined {
  let start = offset;
  let end = word.length;
  while (start < end && /["']/.test(word[start] ?? '')) start++;
  while (end > start && /["';]/.test(word[end - 1] ?? '')) end--;
  if (secret === 'after-colon') {
    const colon = word.indexOf(':', start);
    if (colon === -1 || colon >= end - 1) return undefined;
    start = colon + 1;
  }
  const value = word.slice(start, end);
  if (value === '' || value.startsWith('$') || isNonSecretValue(value)) return undefined;
  return { word: index, start, end };
}

/** Adds a span for every command-line password in `text`, line by line. */
export function detectCommandLines(text: string, spans: SpanSet): void {
  if (!ANY_PROGRAM.test(text)) return;
  let lineStart = 0;
  for (const line of text.split('\n')) {
    if (ANY_PROGRAM.test(line)) {
      const words = [...line.matchAll(/\S+/g)];
      for (const secret of findCommandSecrets(words.map((word) => word[0]))) {
        const wordStart = lineStart + (words[secret.word]?.index ?? 0);
        spans.add(wordStart + secret.start, wordStart + secret.end);
      }
    }
    lineStart += line.length + 1;
  }
}
