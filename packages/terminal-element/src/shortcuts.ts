/**
 * The terminal's own shortcuts, as every good terminal has them: copy and paste without sending Ctrl+C or
 * Ctrl+V to the shell, and a search of the scrollback. Plain Ctrl+C stays the shell's interrupt.
 *
 *   copy    Ctrl+Shift+C; Cmd+C on macOS (only with a selection: without one Cmd+C does nothing either)
 *   paste   Ctrl+Shift+V; Cmd+V on macOS; Shift+Insert
 *   search  Ctrl+Shift+F; Cmd+F on macOS
 */
export type Shortcut = 'copy' | 'paste' | 'search';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

export function shortcutFor(event: KeyLike, mac: boolean): Shortcut | null {
  const key = event.key.toLowerCase();
  if (event.altKey) return null;
  if (key === 'insert' && event.shiftKey && !event.ctrlKey && !event.metaKey) return 'paste';
  const chord = mac ? event.metaKey && !event.ctrlKey && !event.shiftKey : event.ctrlKey && event.shiftKey && !event.metaKey;
  if (!chord) return null;
  if (key === 'c') return 'copy';
  if (key === 'v') return 'paste';
  if (key === 'f') return 'search';
  return null;
}

/** Whether this browser runs on macOS (Cmd is its shortcut key). */
export function isMac(): boolean {
  const nav = typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { userAgentData?: { platform?: string } });
  const platform = nav?.userAgentData?.platform || nav?.platform || '';
  return /^mac/i.test(platform);
}
