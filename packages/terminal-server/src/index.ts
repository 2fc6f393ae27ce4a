/**
 * @shared-terminal/server: the public border of the engine. Hosts get the hub, the tools, the browser
 * transport, the PTY provider contract, config and errors; the queue, the generation, the screen and the
 * evidence stay inside (their types reach hosts only through these). See ../README.md for the rooms.
 */
export * from './config.ts';
export { CodedError, TerminalError } from './errors.ts';
export { type Clock, systemClock } from './time.ts';
export { utf8Length } from './utf8.ts';

// The PTY provider contract, the node-pty provider, and what a host's own provider needs.
export * from './pty/contract.ts';
export { createNodePtyProvider } from './pty/node-pty-provider.ts';
export { containmentMode, type ContainmentMode } from './pty/containment.ts';
export { PROCESS_TREE_VARIABLE, newProcessTreeMark, endProcessTree } from './pty/process-tree.ts';
export { LinuxInspector } from './pty/linux-inspector.ts';
export { DEFAULT_PS1 } from './shell/integration.ts';

// Owners and the hub.
export type { HumanOrigin, OperationKind, OperationResult, QueueErrorCode, QueueStatus, WaitReason } from './queue/operation.ts';
export { QueueError, QUEUE_MESSAGES } from './queue/operation.ts';
export {
  StartupError,
  type InputWait,
  type OutputEvent,
  type ProcessStatus,
  type PromptFact,
  type TerminalGeneration,
} from './terminal/generation.ts';
export { type HumanSession, type HumanSettled } from './hub/human-session.ts';
export { OwnerTerminal, type CapturedOutcome, type OwnerEvents, type OwnerOptions, type OwnerState, type OwnerView } from './hub/owner.ts';
export { TerminalHub, type HubEvents, type HubOptions } from './hub/hub.ts';
export { HumanSettleBatcher, type SettleBatcherOptions } from './hub/settle.ts';

// The four tools.
export {
  TOOL_NAMES,
  TOOL_INPUT_SCHEMAS,
  TOOL_DESCRIPTIONS,
  ToolArgsError,
  boundResult,
  isToolName,
  runTool,
  runSend,
  runRead,
  runSignal,
  runReset,
  type ToolName,
  type BaseResult,
  type SendResult,
  type SignalResult,
  type ReadResult,
  type ResetResult,
  type SendArgs,
  type ReadArgs,
  type SignalArgs,
} from './operations/tools.ts';
export { TOOL_RESULT_SCHEMAS } from './operations/result-schemas.ts';
export { rebuildViewport, type ViewportOmission } from './operations/viewport-compact.ts';

// The browser transport.
export * from './transport/index.ts';
