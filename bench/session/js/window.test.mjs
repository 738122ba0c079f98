import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowed, windowSums } from './window.mjs';

test('windowed yields every full window', () => {
  assert.deepEqual(windowed([1, 2, 3, 4], 2), [[1, 2], [2, 3], [3, 4]]);
});

test('windowed of a short array is empty', () => {
  assert.deepEqual(windowed([1], 2), []);
});

test('windowSums adds each window', () => {
  assert.deepEqual(windowSums([3, 1, 4, 1, 5], 3), [8, 6, 11]);
});
