import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readInvestigation } from './investigation.ts';
import { Query } from './query.ts';

test("the engine asks for a tool's data by the tool's name and gets the tool's own data type; a wrong name or input does not compile", () => {
  const query = new Query(readInvestigation([]));
  const pods = query.data('list_pods', { namespace: 'shop' });
  // ListPodsData: its fields are known to the compiler.
  const total: number | undefined = pods?.total;
  assert.equal(total, undefined, 'not asked yet: no data');
  // @ts-expect-error a tool that does not exist has no data
  query.data('list_unicorns', {});
  // @ts-expect-error describe_pod needs the pod's name
  query.data('describe_pod', { namespace: 'shop' });
  assert.deepEqual(
    query.wanted.map((call) => call.name),
    ['list_pods', 'list_unicorns', 'describe_pod'],
    'every call asked for is recorded once, to be made in one turn',
  );
  assert.throws(() => query.barrier(), /NeedsAnswers/);
});
