/**
 * Stands in for `node-pty` in the bundled server half. The engine's own node-pty provider is never used in
 * DSH: shells are spawned by DSH's subprocess provider, so the plugin ships no native module of its own.
 */
export function spawn(): never {
  throw new Error("dsh-interactive-terminal spawns shells through DSH's subprocess provider, not node-pty");
}
