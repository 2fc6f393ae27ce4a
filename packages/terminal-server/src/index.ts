/**
 * @shared-terminal/server: the shared terminal engine. See ../README.md for the map of rooms.
 */
export * from './config.ts';
export * from './errors.ts';
export * from './pty/contract.ts';
export { createNodePtyProvider } from './pty/node-pty-provider.ts';
export { containmentMode, type ContainmentMode } from './pty/containment.ts';
export { PROCESS_TREE_VARIABLE, newProcessTreeMark, markedProcesses, endProcessTree } from './pty/process-tree.ts';
export { readProcStat, descendantPids, sessionProcesses } from './pty/procfs.ts';
export { LinuxInspector } from './pty/linux-inspector.ts';
export { judge, type Observation, type Verdict, type WaitFacts } from './terminal/evidence.ts';
export { MarkerFilter, unfinishedSequenceStart, prepareShellLaunch, scrubEnvironment, DEFAULT_PS1, type ShellMarker } from './shell/integration.ts';
export { Screen, LIVE_SCROLLBACK, type ScreenSnapshot, type ScreenPage, type CaptureResult } from './screen/screen.ts';
export { utf8Length, utf8Tail, wellFormed } from './screen/utf8.ts';
export * from './queue/clock.ts';
export * from './queue/queue.ts';
export * from './terminal/generation.ts';
export * from './hub/owner.ts';
export * from './hub/hub.ts';
export * from './hub/settle.ts';
export * from './operations/tools.ts';
export { TOOL_RESULT_SCHEMAS } from './operations/result-schemas.ts';
export { compactViewport, rebuildViewport, type ViewportOmission } from './operations/viewport-compact.ts';
export * from './transport/index.ts';
