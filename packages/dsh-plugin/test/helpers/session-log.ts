/**
 * Reading DSH's session logs: `$DSH_HOME/sessions/<workspace>/<sessionId>/session.jsonl.zstd` is many
 * concatenated zstd frames. Node's `zstdDecompressSync` stops after the first frame, so the frames are
 * split here (by their headers and block sizes) and decompressed one by one.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { zstdDecompressSync } from 'node:zlib';

const FRAME_MAGIC = 0xfd2fb528;

/** The byte length of the zstd frame (or skippable frame) that starts at `offset`. */
function frameLength(buffer: Buffer, offset: number): number {
  const magic = buffer.readUInt32LE(offset);
  if ((magic & 0xfffffff0) === 0x184d2a50) return 8 + buffer.readUInt32LE(offset + 4);
  if (magic !== FRAME_MAGIC) throw new Error(`not a zstd frame at byte ${offset}`);
  let at = offset + 4;
  const descriptor = buffer[at++]!;
  const contentSizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  const dictionaryFlag = descriptor & 3;
  if (!singleSegment) at += 1;
  at += [0, 1, 2, 4][dictionaryFlag]!;
  at += [singleSegment ? 1 : 0, 2, 4, 8][contentSizeFlag]!;
  for (;;) {
    const header = buffer[at]! | (buffer[at + 1]! << 8) | (buffer[at + 2]! << 16);
    at += 3;
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >> 3;
    at += type === 1 ? 1 : size;
    if (last) break;
  }
  if (checksum) at += 4;
  return at - offset;
}

export function decompressFrames(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const length = frameLength(buffer, offset);
    const frame = buffer.subarray(offset, offset + length);
    if (frame.readUInt32LE(0) === FRAME_MAGIC) parts.push(zstdDecompressSync(frame));
    offset += length;
  }
  return Buffer.concat(parts).toString('utf8');
}

export interface LoggedEvent {
  type: string;
  data?: unknown;
  [key: string]: unknown;
}

export interface SessionLog {
  sessionId: string;
  path: string;
  raw: string;
  events: LoggedEvent[];
}

/** Every session log under `$DSH_HOME/sessions`. */
export function readSessionLogs(home: string): SessionLog[] {
  const root = join(home, 'sessions');
  const logs: SessionLog[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'session.jsonl.zstd') {
        const raw = decompressFrames(readFileSync(path));
        const events = raw
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as LoggedEvent);
        logs.push({ sessionId: name === 'session.jsonl.zstd' ? dir.split('/').pop()! : name, path, raw, events });
      }
    }
  };
  try {
    walk(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return logs;
}
