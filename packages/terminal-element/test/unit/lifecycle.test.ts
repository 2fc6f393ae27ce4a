// What each close code leads to: the table that says when the view retries on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CloseCode } from '@shared-terminal/server/protocol';
import { closeDecision, type CloseDecision } from '../../src/connection/lifecycle.ts';

const table: Array<[number, CloseDecision]> = [
  [CloseCode.normal, 'retry'],
  [1006, 'retry'], // abnormal closure: the network dropped the socket (no CloseCode of ours)
  [CloseCode.serverError, 'retry'],
  [CloseCode.heartbeatTimeout, 'retry'],
  [CloseCode.shutdown, 'retry'],
  [CloseCode.invalidData, 'protocol-error'],
  [CloseCode.protocolError, 'protocol-error'],
  [CloseCode.tooBig, 'protocol-error'],
  [CloseCode.reset, 'reattach'],
  [CloseCode.disposed, 'disposed'],
  [CloseCode.refused, 'refused'],
];

for (const [code, decision] of table) {
  test(`close ${code} → ${decision}`, () => assert.equal(closeDecision(code), decision));
}
