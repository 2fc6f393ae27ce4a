// The terminal's own shortcuts: which chords copy, paste and search, and that the shell keeps the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortcutFor, type KeyLike } from '../../src/shortcuts.ts';

const key = (k: string, mods: Partial<Omit<KeyLike, 'key'>> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  shiftKey: false,
  altKey: false,
  metaKey: false,
  ...mods,
});

test("Linux and Windows: Ctrl+Shift+C/V/F and Shift+Insert; Ctrl+C and Ctrl+V stay the shell's", () => {
  assert.equal(shortcutFor(key('C', { ctrlKey: true, shiftKey: true }), false), 'copy');
  assert.equal(shortcutFor(key('V', { ctrlKey: true, shiftKey: true }), false), 'paste');
  assert.equal(shortcutFor(key('F', { ctrlKey: true, shiftKey: true }), false), 'search');
  assert.equal(shortcutFor(key('Insert', { shiftKey: true }), false), 'paste');
  assert.equal(shortcutFor(key('c', { ctrlKey: true }), false), null);
  assert.equal(shortcutFor(key('v', { ctrlKey: true }), false), null);
  assert.equal(shortcutFor(key('c', { metaKey: true }), false), null);
  assert.equal(shortcutFor(key('C', { ctrlKey: true, shiftKey: true, altKey: true }), false), null);
});

test("macOS: Cmd+C/V/F; Ctrl+C stays the shell's", () => {
  assert.equal(shortcutFor(key('c', { metaKey: true }), true), 'copy');
  assert.equal(shortcutFor(key('v', { metaKey: true }), true), 'paste');
  assert.equal(shortcutFor(key('f', { metaKey: true }), true), 'search');
  assert.equal(shortcutFor(key('c', { ctrlKey: true }), true), null);
  assert.equal(shortcutFor(key('C', { ctrlKey: true, shiftKey: true }), true), null);
});
