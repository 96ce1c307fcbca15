/** What the tools leave out or fold to keep the model's context small, and what they always keep. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatPodGroup } from '../src/tools/format/pod-group.ts';
import type { PodSummaryData } from '../src/tools/format/pod-status.ts';
import type { RevisionData } from '../src/tools/format/rollout.ts';
import { foldRequestLines, shortenAccessLogLine } from '../src/tools/pod-logs.ts';
import { formatRevisionLine } from '../src/tools/rollout-history.ts';

const now = new Date('2026-11-29T10:00:00Z');
const request = (path: string, status: number): string =>
  `10.244.3.26 - - [29/Nov/2026:09:59:0${status % 10} +0000] "GET ${path} HTTP/1.1" ${status} 26 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36"`;

describe('log request lines', () => {
  it('keep the request and status, the first product of the user agent, and drop an empty referer', () => {
    assert.equal(
      shortenAccessLogLine(request('/admin', 401)),
      '10.244.3.26 - - [29/Nov/2026:09:59:01 +0000] "GET /admin HTTP/1.1" 401 26 "Mozilla/5.0"',
    );
    assert.equal(shortenAccessLogLine('ERROR connect refused'), 'ERROR connect refused');
  });
  it('fold a run past its first lines into counts by request and status, keeping every server error and every other line', () => {
    const lines = [
      'starting',
      request('/a', 401),
      request('/b', 401),
      request('/c', 401),
      request('/d', 200),
      request('/e', 503),
      request('/c', 401),
      'TypeError: boom',
    ];
    const folded = foldRequestLines(lines);
    assert.equal(folded[0], 'starting');
    assert.match(folded[3] ?? '', /"GET \/e HTTP\/1.1" 503/);
    assert.equal(folded[4], '[3 more request line(s): GET /c 401 x2, GET /d 200 x1]');
    assert.equal(folded.at(-1), 'TypeError: boom');
  });
  it('name the most frequent requests of a long run and count the rest', () => {
    const lines = [
      ...['/healthz', '/healthz'].map((path) => request(path, 404)),
      ...Array.from({ length: 30 }, () => request('/healthz', 404)),
      ...['/a', '/b', '/c', '/d', '/e'].map((path) => request(path, 200)),
      request('/health/ready', 200),
    ];
    assert.equal(
      foldRequestLines(lines).at(-1),
      '[36 more request line(s): GET /healthz 404 x30, GET /a 200 x1, GET /b 200 x1, GET /c 200 x1, 3 other(s)]',
    );
  });
});

describe('pod groups', () => {
  const crashing = (name: string, node: string): PodSummaryData => ({
    namespace: 'shop',
    name,
    status: 'CrashLoopBackOff',
    phase: 'Running',
    ready: '0/1',
    restarts: 9,
    node,
    ageSeconds: 1400,
    healthy: false,
    problem: {
      container: 'app',
      last: false,
      state: {
        state: 'waiting',
        reason: 'CrashLoopBackOff',
        message: `back-off 5m0s restarting failed container=app pod=${name}_shop(0b5c6f1e-1111-2222-3333-444455556666)`,
      },
    },
  });
  it('name the pods that fail the same way after the first, rather than repeat the line', () => {
    const lines = formatPodGroup(
      {
        total: 2,
        countsByStatus: { CrashLoopBackOff: 2 },
        pods: [crashing('cart-7d9f-a1', 'node-1'), crashing('cart-7d9f-b2', 'node-2')],
      },
      now,
    );
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', /^ {2}cart-7d9f-a1: CrashLoopBackOff, .*node node-1.*; likewise cart-7d9f-b2$/);
  });
});

describe('revision lines', () => {
  const revision = (number: number, image: string): RevisionData => ({
    revision: number,
    replicaSet: `web-${number}`,
    images: [image],
    replicas: 0,
    readyReplicas: 0,
    current: false,
    createdAt: '2026-11-28T10:00:00Z',
    template: {
      containers: [],
      volumes: [],
      tolerations: [],
      imagePullSecrets: [],
    } as unknown as RevisionData['template'],
  });
  it('say an unchanged image is the same as the newer revision, and write a changed one', () => {
    assert.match(formatRevisionLine(revision(3, 'web:1.2'), now, revision(4, 'web:1.2')), /same image as revision 4/);
    assert.match(formatRevisionLine(revision(2, 'web:1.1'), now, revision(3, 'web:1.2')), /image web:1\.1/);
  });
});
