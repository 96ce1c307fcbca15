import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_RULES } from './command-lines.ts';
import { PROVIDER_RULES } from './provider-rules.ts';
import { redactText, redactValue } from './redactor.ts';

/** The part of an example that must disappear: the longest run of token characters (the token itself). */
function tokenIn(example: string): string {
  const runs = example.match(/[A-Za-z0-9_\-+/.=:]{12,}/g) ?? [];
  return runs.sort((left, right) => right.length - left.length)[0] ?? example;
}

describe('provider rules', () => {
  it('every rule has an id, an origin, lowercase keywords and at least one example', () => {
    const ids = new Set<string>();
    for (const rule of PROVIDER_RULES) {
      assert.ok(!ids.has(rule.id), `duplicate id ${rule.id}`);
      ids.add(rule.id);
      assert.ok(rule.origin.startsWith('secretlint') || rule.origin === 'kubewhy', rule.id);
      assert.ok(rule.pattern.global, `${rule.id} must be global`);
      assert.ok(
        rule.keywords.length > 0 && rule.keywords.every((keyword) => keyword === keyword.toLowerCase()),
        rule.id,
      );
      assert.ok(rule.examples.length > 0, rule.id);
    }
  });

  for (const rule of PROVIDER_RULES) {
    it(`${rule.id}: each example is caught by the rule and masked by redactText`, () => {
      for (const example of rule.examples) {
        rule.pattern.lastIndex = 0;
        const match = rule.pattern.exec(example);
        assert.ok(match, `${rule.id} does not match its example ${example}`);
        const secret = rule.secretGroup !== undefined ? match[rule.secretGroup] : match[0];
        assert.ok(secret && (!rule.accept || rule.accept(secret)), `${rule.id} rejects its example`);
        assert.ok(
          rule.keywords.some((keyword) => example.toLowerCase().includes(keyword)),
          `${rule.id}: no keyword in ${example}`,
        );
        const output = redactText(example);
        assert.ok(!output.includes(secret), `${rule.id}: ${output}`);
      }
    });
  }
});

describe('command rules', () => {
  for (const rule of COMMAND_RULES) {
    it(`${rule.id}: the password is masked in a command line and in an argv array`, () => {
      for (const example of rule.examples) {
        const secret = /Canary[A-Za-z]+\d/.exec(example)?.[0] ?? tokenIn(example);
        assert.ok(!redactText(example).includes(secret), redactText(example));
        assert.ok(
          !JSON.stringify(redactValue(example.split(' '))).includes(secret),
          JSON.stringify(redactValue(example.split(' '))),
        );
      }
    });
  }

  it('docker -p outside a login is a port, not a password', () => {
    const line = 'docker run -p 8080:80 nginx';
    assert.equal(redactText(line), line);
    assert.deepEqual(redactValue(line.split(' ')), line.split(' '));
  });
});
