/**
 * Putting the shell integration back into a new bash in the same process (`exec bash`): the new image has
 * none of the old one's hook, so exit statuses and marks would be gone for the rest of the terminal's life.
 * The restore is a line typed at that bash's prompt which sources a private file (its own 0700 folder,
 * mode 0600) holding the hook and the nonce; the file deletes itself when sourced, and the folder goes a
 * little later in any case.
 */
import { promises as fs, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { restoreScript } from './integration.ts';

/** How long the private folder may outlive a restore that never ran (a restricted bash refused `.`). */
const RESTORE_FILE_TTL_MS = 10_000;

/** Whether process `pid` runs bash (the restore is bash code; only bash's line editor is a prompt). One
 *  readlink in /proc, read at once: a verdict never waits on it. */
export function runsBash(pid: number): boolean {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) === 'bash';
  } catch {
    return false;
  }
}

/** Writes the restore file; resolves with the line to type (leading space: kept out of most histories). */
export async function prepareRestore(nonce: string): Promise<string> {
  const folder = await fs.mkdtemp(join(tmpdir(), 'shared-terminal-restore-'));
  const file = join(folder, 'hook.bash');
  await fs.writeFile(file, restoreScript(nonce), { mode: 0o600 });
  setTimeout(() => void fs.rm(folder, { recursive: true, force: true }), RESTORE_FILE_TTL_MS).unref();
  // Ctrl-U first: nothing half-typed joins the line. A shell that cannot read the file (a sandbox with a
  // private /tmp) says nothing: the restore is simply not done, and the prompt is found from the kernel.
  return `\x15 . '${file.replaceAll("'", "'\\''")}' 2>/dev/null\r`;
}
