/**
 * The harmless noise of a healthy cluster's logs: retries that succeed, warnings that
 * resolve, counters of zero errors, words like "error" and "failed" in lines that report
 * nothing wrong now. One generator per kind of container, each on the cluster's clock.
 */
import type { KubeObject } from '../../types.ts';
import type { ClusterBuilder } from './cluster.ts';
import type { Clock } from './kit.ts';

export function findPod(cluster: ClusterBuilder, namespace: string, app: string): KubeObject {
  const pod = cluster.objects.find((object) => object.kind === 'Pod' && object.metadata.namespace === namespace && object.metadata.labels?.['app'] === app);
  if (!pod) throw new Error(`no pod of ${app} in ${namespace}`);
  return pod;
}

/** The klog header after its level letter: `1127 08:44:59.123456`. */
export function klog(clock: Clock, ago: string, extraMs = 0): string {
  const iso = clock.logAgo(ago, extraMs);
  return `${iso.slice(5, 7)}${iso.slice(8, 10)} ${iso.slice(11, 23)}000`;
}

/** What a team's log lines name: its app, its package, its datastore. */
export interface LogNames {
  app: string;
  database: string;
}

type LogLines = (clock: Clock, names: LogNames) => string[];

function javaPackage(app: string): string {
  return `c.e.${app.split('-')[0] ?? app}`;
}

function javaClass(app: string): string {
  return `${app.split('-').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')}Application`;
}

const javaApi: LogLines = (clock, names) => [
  `${clock.logAgo('2d5h')}  INFO 1 --- [main] o.s.b.w.e.tomcat.TomcatWebServer  : Tomcat started on port 8080 (http) with context path '/'`,
  `${clock.logAgo('2d5h', 310)}  INFO 1 --- [main] ${javaPackage(names.app)}.${javaClass(names.app)} : Started ${javaClass(names.app)} in 11.84 seconds (process running for 12.6)`,
  `${clock.logAgo('2d5h', 2000)}  INFO 1 --- [main] ${javaPackage(names.app)}.cache.WarmUp           : cache warm-up finished: 18234 keys loaded, 0 errors`,
  `${clock.logAgo('3h41m')}  WARN 1 --- [rates-client-3] ${javaPackage(names.app)}.rates.RatesClient      : upstream-rates timed out after 2000ms, retrying in 5s (attempt 1/5)`,
  `${clock.logAgo('3h41m', 5200)}  INFO 1 --- [rates-client-3] ${javaPackage(names.app)}.rates.RatesClient      : upstream-rates recovered after 1 retry`,
  `${clock.logAgo('1h2m')}  INFO 1 --- [scheduling-1] ${javaPackage(names.app)}.cache.Refresh          : refreshed 18301 entries in 2.4s (0 errors, 0 skipped)`,
  `${clock.logAgo('14m')}  INFO 1 --- [http-nio-8080-exec-7] ${javaPackage(names.app)}.web.AccessLog          : GET /v1/items/88120 200 9ms`,
  `${clock.logAgo('2m')}  INFO 1 --- [scheduling-1] ${javaPackage(names.app)}.cache.Refresh          : refreshed 18302 entries in 2.2s (0 errors, 0 skipped)`,
];

const nodeApi: LogLines = (clock, names) => [
  `{"level":30,"time":"${clock.logAgo('2d5h')}","pid":1,"hostname":"${names.app}","msg":"server listening on :3000"}`,
  `{"level":30,"time":"${clock.logAgo('2d5h', 800)}","pid":1,"msg":"cache connected","host":"${names.database}"}`,
  `{"level":40,"time":"${clock.logAgo('5h12m')}","pid":1,"msg":"cache connection reset by peer, reconnecting in 5s","attempt":1}`,
  `{"level":30,"time":"${clock.logAgo('5h12m', 5100)}","pid":1,"msg":"cache reconnected","attempt":1}`,
  `{"level":30,"time":"${clock.logAgo('40m')}","pid":1,"req":{"method":"GET","url":"/v1/accounts/84211"},"res":{"statusCode":200},"responseTime":7,"msg":"request completed"}`,
  `{"level":30,"time":"${clock.logAgo('3m')}","pid":1,"msg":"error budget report","errors":0,"requests":48211,"window":"1h"}`,
];

const queueWorker: LogLines = (clock) => [
  `${clock.logAgo('6d1h')} INFO  worker started, concurrency=8, queue=events`,
  `${clock.logAgo('4h30m')} WARN  broker heartbeat missed, retrying in 5s`,
  `${clock.logAgo('4h30m', 5300)} INFO  broker connection restored`,
  `${clock.logAgo('1h')} INFO  batch processed: 500 messages, 0 errors, 0 retries, 812ms`,
  `${clock.logAgo('31m')} INFO  dead-letter queue check: 0 messages`,
  `${clock.logAgo('1m')} INFO  batch processed: 500 messages, 0 errors, 0 retries, 790ms`,
];

const coredns = (version: string): string[] => [
  '.:53',
  '[INFO] plugin/reload: Running configuration SHA512 = 8a7d59126e7f114ab49c6d2613be93d8ef7d408af8ee61a710210843dc409f03133727e38f64469d9bb180f396c84ebf48a42bde3b3769730865ca9df5eb281c',
  `CoreDNS-${version}`,
  'linux/amd64, go1.21.11, a6338e9',
  `[INFO] 127.0.0.1:46215 - 22563 "HINFO IN 3081637396539911093.4128532390537329442. udp 57 false 512" NXDOMAIN qr,rd,ra 132 0.001184392s`,
  '[WARNING] No files matching import glob pattern: custom/*.override',
];

const awsNode = (clock: Clock): string[] => [
  `{"level":"info","ts":"${clock.logAgo('5d4h')}","caller":"entrypoint.sh","msg":"Validating env variables ..."}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 40)}","caller":"entrypoint.sh","msg":"Install CNI binaries.."}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 90)}","caller":"entrypoint.sh","msg":"Starting IPAM daemon ... "}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 200)}","caller":"entrypoint.sh","msg":"Checking for IPAM connectivity ... "}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 2300)}","caller":"entrypoint.sh","msg":"Retrying waiting for IPAM-D"}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 4400)}","caller":"entrypoint.sh","msg":"Copying config file ... "}`,
  `{"level":"info","ts":"${clock.logAgo('5d4h', 4500)}","caller":"entrypoint.sh","msg":"Successfully copied CNI plugin binary and config file."}`,
];

const albController = (clock: Clock): string[] => [
  `{"level":"info","ts":"${clock.logAgo('6d')}","msg":"version","GitVersion":"v2.10.1","GitCommit":"a6f1b5d5b0b1b9a2a0f2c0b6d9e5c7a4e1f3d2c8","BuildDate":"2024-11-19T18:22:40+0000"}`,
  `{"level":"info","ts":"${clock.logAgo('6d', 900)}","logger":"setup","msg":"adding health check for controller"}`,
  `{"level":"info","ts":"${clock.logAgo('6d', 1400)}","msg":"attempting to acquire leader lease kube-system/aws-load-balancer-controller-leader..."}`,
  `{"level":"info","ts":"${clock.logAgo('5h3m')}","logger":"controllers.ingress","msg":"successfully deployed model","ingressGroup":"pricing/price-api"}`,
  `{"level":"info","ts":"${clock.logAgo('5h3m', 700)}","logger":"backend-sg-provider","msg":"No ingress found, backend SG will be auto-removed if unused"}`,
];

export const teamLogs = { javaApi, nodeApi, queueWorker, coredns, awsNode, albController };
