import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFailingValues, VALUE_FORMS } from './failing-values.ts';
import { describeValueSource, describeValueSources, SOURCE_ROWS, traceLine } from './value-source.ts';
import { describeRefusal, readAccessRefusal, REFUSAL_FORMS } from './access-refusal.ts';
import { readWaitTarget, WAIT_FORMS } from './wait-commands.ts';

describe('failing values', () => {
  for (const form of VALUE_FORMS) {
    it(`${form.id} has examples that must and must not match`, () => {
      assert.ok(
        form.examples.match.length > 0 && form.examples.noMatch.length > 0,
        `${form.id} needs both kinds of example`,
      );
    });
    for (const example of form.examples.match) {
      it(`${form.id} reads ${JSON.stringify(example.line)}`, () => {
        const match = form.pattern.exec(example.line);
        assert.ok(match, 'the pattern matches');
        assert.deepEqual(form.read(match), example.values);
      });
    }
    for (const line of form.examples.noMatch) {
      it(`${form.id} does not read ${JSON.stringify(line)}`, () => assert.equal(form.pattern.exec(line), null));
    }
  }

  it('reads the host and port inside a URL', () => {
    assert.deepEqual(
      readFailingValues('Get "http://inventory-api:8081/v1/stock": context deadline exceeded').map(
        (value) => value.value,
      ),
      ['http://inventory-api:8081/v1/stock', 'inventory-api', '8081'],
    );
  });
});

describe('value sources', () => {
  for (const row of SOURCE_ROWS) {
    it(`${row.id} has examples that must and must not trace`, () => {
      assert.ok(
        row.examples.match.length > 0 && row.examples.noMatch.length > 0,
        `${row.id} needs both kinds of example`,
      );
    });
    for (const [index, example] of row.examples.match.entries()) {
      it(`${row.id} traces example ${index + 1}`, () => {
        const found = row.find(example.value, example.spec);
        assert.ok(found, 'traced');
        assert.match(found.place, example.place);
      });
    }
    for (const [index, example] of row.examples.noMatch.entries()) {
      it(`${row.id} does not trace counter-example ${index + 1}`, () =>
        assert.equal(row.find(example.value, example.spec), undefined));
    }
  }

  it('names the revision that changed the source', () => {
    const [source] = traceLine('dial tcp 10.0.3.7:5433: connect: connection refused', {
      container: {
        name: 'app',
        init: false,
        image: 'orders:2',
        ports: [],
        env: [{ name: 'DB_PORT', value: '5433' }],
        envFrom: [],
        resources: {},
        probes: [],
        volumeMounts: [],
      },
      volumes: [],
      configMaps: [],
      change: {
        revision: 7,
        entries: [{ container: 'app', field: 'env DB_PORT', from: 'value "5432"', to: 'value "5433"' }],
      },
    });
    assert.ok(source);
    assert.equal(
      describeValueSource(source),
      'the failing port 5433 comes from env DB_PORT="5433" in the pod spec; revision 7 changed it from value "5432" to value "5433"',
    );
  });

  it('never shows a Secret value, only where it would be', () => {
    const [source] = traceLine('FATAL: password authentication failed for user "ledger_rw"', {
      container: {
        name: 'app',
        init: false,
        image: 'ledger:3',
        ports: [],
        env: [{ name: 'PGUSER', source: { kind: 'secretKeyRef', name: 'ledger-db', key: 'user' } }],
        envFrom: [],
        resources: {},
        probes: [],
        volumeMounts: [],
      },
      volumes: [],
      configMaps: [],
    });
    assert.ok(source?.byName);
    assert.match(
      describeValueSource(source),
      /presumably set by env PGUSER from Secret ledger-db key user \(value not shown\)/,
    );
  });
});

describe('access refusals', () => {
  for (const form of REFUSAL_FORMS) {
    it(`${form.id} has examples that must and must not match`, () =>
      assert.ok(form.examples.match.length > 0 && form.examples.noMatch.length > 0));
    for (const example of form.examples.match)
      it(`${form.id} reads ${example.line.slice(0, 60)}…`, () =>
        assert.deepEqual(readAccessRefusal(example.line), example.refusal));
    for (const line of form.examples.noMatch)
      it(`${form.id} does not read ${JSON.stringify(line)}`, () => assert.equal(readAccessRefusal(line), undefined));
  }

  it('says who may not do what, where', () => {
    const refusal = readAccessRefusal(
      'pods is forbidden: User "system:serviceaccount:ops:janitor" cannot delete resource "pods" in API group "" in the namespace "batch"',
    );
    assert.ok(refusal);
    assert.equal(
      describeRefusal(refusal),
      'the Kubernetes API refuses service account ops/janitor: it may not delete pods in namespace batch (RBAC forbidden)',
    );
  });
});

describe('wait commands', () => {
  for (const form of WAIT_FORMS) {
    it(`${form.id} has examples that must and must not match`, () =>
      assert.ok(form.examples.match.length > 0 && form.examples.noMatch.length > 0));
    for (const example of form.examples.match)
      it(`${form.id} reads ${JSON.stringify(example.command)}`, () =>
        assert.deepEqual(readWaitTarget(example.command), { ...example.target, via: form.id }));
    for (const command of form.examples.noMatch)
      it(`${form.id} does not read ${JSON.stringify(command)}`, () => assert.equal(form.pattern.exec(command), null));
  }
});

describe('value sources said together', () => {
  it('says the host and port one variable sets in one line', () => {
    const lines = describeValueSources(
      traceLine('Error: connect ECONNREFUSED redis-master.cache.svc:6380', {
        container: {
          name: 'app',
          init: false,
          image: 'cart:3',
          ports: [],
          env: [{ name: 'REDIS_URL', value: 'redis://redis-master.cache.svc:6380/0' }],
          envFrom: [],
          resources: {},
          probes: [],
          volumeMounts: [],
        },
        volumes: [],
        configMaps: [],
      }),
    );
    assert.deepEqual(lines, [
      'the failing host redis-master.cache.svc and port 6380 come from env REDIS_URL="redis://redis-master.cache.svc:6380/0" in the pod spec',
    ]);
  });
});
