/**
 * Short forms people on call type for the software a workload is named after: "zk" for
 * ZooKeeper, "pg" for Postgres, "es" for Elasticsearch. A report's word that is one of them
 * also counts as the words it stands for when names are matched (mentions.ts), so "zk
 * warnings since the migration" names zookeeper. Only whole words expand, and only forms
 * that mean the software in an incident's words; each row says where it applies and where not.
 */
export interface Abbreviation {
  /** The short forms, lowercase, as whole words. */
  readonly short: readonly string[];
  /** The name parts they stand for. */
  readonly stands: readonly string[];
  readonly examples: {
    readonly names: readonly string[];
    readonly reports: readonly string[];
    readonly doesNotReport: readonly string[];
  };
}

export const ABBREVIATIONS: readonly Abbreviation[] = [
  {
    short: ['zk'],
    stands: ['zookeeper'],
    examples: {
      names: ['zookeeper'],
      reports: ['zk warnings all over since the migration', 'is ZK down?'],
      doesNotReport: ['zoo tickets sold out', 'the zkp token expired'],
    },
  },
  {
    short: ['pg', 'psql', 'pgsql'],
    stands: ['postgres', 'postgresql'],
    examples: {
      names: ['orders-postgres', 'postgresql'],
      reports: ['pg is refusing connections', 'cant connect to psql in billing'],
      doesNotReport: ['page loads are slow', 'the pgbouncer pool is full'],
    },
  },
  {
    short: ['es'],
    stands: ['elasticsearch', 'elastic'],
    examples: {
      names: ['elasticsearch-master', 'logs-elastic'],
      reports: ['es cluster is red', 'search is slow, es?'],
      doesNotReport: ['yes it is down', 'the es-MX locale is broken'],
    },
  },
  {
    short: ['rmq', 'rabbit'],
    stands: ['rabbitmq'],
    examples: {
      names: ['rabbitmq'],
      reports: ['rmq queues backing up', 'rabbit is down again'],
      doesNotReport: ['the rabbit-hole dashboard is slow'],
    },
  },
  {
    short: ['mongo'],
    stands: ['mongodb'],
    examples: {
      names: ['mongodb'],
      reports: ['mongo replica set lost primary'],
      doesNotReport: ['mongoose validation errors in the logs'],
    },
  },
  {
    short: ['ch'],
    stands: ['clickhouse'],
    examples: {
      names: ['clickhouse'],
      reports: ['ch inserts failing in analytics'],
      doesNotReport: ['check the checkout pods', 'chart values changed'],
    },
  },
  {
    short: ['kc'],
    stands: ['keycloak'],
    examples: {
      names: ['keycloak'],
      reports: ['login broken, kc not ready'],
      doesNotReport: ['kcal counter in the app'],
    },
  },
  {
    short: ['prom'],
    stands: ['prometheus'],
    examples: {
      names: ['prometheus-server'],
      reports: ['prom keeps restarting'],
      doesNotReport: ['promo codes do not apply', 'promtail is behind'],
    },
  },
  {
    short: ['gw'],
    stands: ['gateway'],
    examples: {
      names: ['api-gateway', 'payment-gateway'],
      reports: ['gw returns 502s'],
      doesNotReport: ['the gwt token is invalid'],
    },
  },
  {
    short: ['notif', 'notifs'],
    stands: ['notification', 'notifications', 'notifier'],
    examples: {
      names: ['notification-router', 'notifier'],
      reports: ['notifs not going out since noon'],
      doesNotReport: ['nothing changed in the notify hook'],
    },
  },
  {
    short: ['sched'],
    stands: ['scheduler'],
    examples: { names: ['job-scheduler'], reports: ['sched pods pending'], doesNotReport: ['sched-v2 flag is on'] },
  },
];

const BY_SHORT: ReadonlyMap<string, readonly string[]> = new Map(
  ABBREVIATIONS.flatMap((row) => row.short.map((short) => [short, row.stands] as const)),
);

/** The words a report's short forms stand for; a short form counts only as a word of its own, not inside "es-mx" or "zk-ui". */
export function expandAbbreviations(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .flatMap((word) => BY_SHORT.get(word) ?? []);
}
