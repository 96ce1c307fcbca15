import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAmount, parseQuantity, readAmount } from './quantity.ts';

test('parses cpu in cores and millicores', () => {
  assert.equal(parseQuantity('500m'), 0.5);
  assert.equal(parseQuantity('2'), 2);
  assert.equal(parseQuantity('0.25'), 0.25);
  assert.equal(readAmount('cpu', '500m'), 500);
  assert.equal(readAmount('cpu', '1.5'), 1500);
  assert.equal(readAmount('cpu', '3920m'), 3920);
});

test('parses memory with binary and decimal suffixes and plain bytes', () => {
  assert.equal(readAmount('memory', '512Mi'), 512 * 2 ** 20);
  assert.equal(readAmount('memory', '1Gi'), 2 ** 30);
  assert.equal(readAmount('memory', '1.5G'), 1_500_000_000);
  assert.equal(readAmount('memory', '128974848'), 128_974_848);
  assert.equal(readAmount('memory', '129e6'), 129_000_000);
  assert.equal(readAmount('memory', '16323232Ki'), 16_323_232 * 1024);
  assert.equal(readAmount('ephemeral-storage', '10Gi'), 10 * 2 ** 30);
});

test('tells the exponent 1E3 from the exa suffix 1E', () => {
  assert.equal(parseQuantity('1E3'), 1000);
  assert.equal(parseQuantity('1E'), 1e18);
});

test('counts extended resources such as GPUs and pods', () => {
  assert.equal(readAmount('nvidia.com/gpu', '1'), 1);
  assert.equal(readAmount('pods', '110'), 110);
});

test('rounds a fraction of a millicore or byte up, as the API server does', () => {
  assert.equal(readAmount('cpu', '0.0001'), 1);
  assert.equal(readAmount('memory', '0.5'), 1);
  assert.equal(readAmount('cpu', String(0.1 * 3)), 300);
});

test('refuses text that is no quantity', () => {
  for (const text of ['', 'lots', '1 Gi', '12GB', 'Mi', '0x10']) assert.equal(parseQuantity(text), undefined, text);
});

test('writes amounts back in the units a person reads', () => {
  assert.equal(formatAmount('cpu', 250), '250m');
  assert.equal(formatAmount('cpu', 2000), '2');
  assert.equal(formatAmount('memory', 512 * 2 ** 20), '512Mi');
  assert.equal(formatAmount('memory', 1.5 * 2 ** 30), '1.5Gi');
  assert.equal(formatAmount('memory', 1_500_000_000), '1.4Gi');
  assert.equal(formatAmount('memory', 900), '900');
  assert.equal(formatAmount('nvidia.com/gpu', 0), '0');
});
