/**
 * Which Unix socket is connected to which: the kernel says it through its socket diagnostics only, which
 * `ss -xH` (iproute2) prints as one line per connected Unix socket, its inode and its peer's inode:
 *
 *   u_str ESTAB 0 0 * 2417338 * 2417339
 *
 * The inspector needs it to tell an event loop's wakeup channel from a relay: Python's asyncio (ipython,
 * every prompt_toolkit REPL) polls one end of a socketpair beside the terminal and holds the other end
 * itself, where ssh or tmux's client polls a socket whose far end another process holds.
 *
 * A listing costs a process spawn (the server forks), so peers are kept: a connected socket's peer does not
 * change. An inode not in a listing is listed again at most once per MISS_RETRY_MS. Without `ss`, no peer
 * is known and every socket keeps counting as a way out.
 */
import { execFile } from 'node:child_process';

/** An inode not found is looked for again after this long (a socket connected since). */
const MISS_RETRY_MS = 1000;
/** A listing that takes longer than this is given up (no peers from it). */
const LIST_TIMEOUT_MS = 2000;
/** Peers kept at most; past it the map starts over (sockets come and go, inodes are not reused soon). */
const MAX_KEPT = 8192;
/** The fields of a line whose addresses are unnamed or one-word paths: netid, state, two queues, then
 *  local address and inode, peer address and inode. Lines of any other shape are left out. */
const FIELDS = 8;

/** The listing; undefined when this run failed; 'missing' when there is no `ss` to run. */
export type ListUnixSockets = () => Promise<string | undefined | 'missing'>;

const listWithSs: ListUnixSockets = () =>
  new Promise((resolve) => {
    execFile('ss', ['-xH'], { timeout: LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (!error) resolve(stdout);
      else resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined);
    });
  });

/** Each connected Unix socket's peer, by inode, from a listing of `ss -xH`. */
export function parseUnixPeers(listing: string): Map<number, number> {
  const peers = new Map<number, number>();
  for (const line of listing.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== FIELDS || !fields[0]!.startsWith('u_')) continue;
    const inode = Number(fields[5]);
    const peer = Number(fields[7]);
    if (Number.isSafeInteger(inode) && inode > 0 && Number.isSafeInteger(peer) && peer > 0) peers.set(inode, peer);
  }
  return peers;
}

export class SocketPeers {
  private readonly list: ListUnixSockets;
  private readonly peers = new Map<number, number>();
  private lastListing = Number.NEGATIVE_INFINITY;
  private listing: Promise<void> | undefined;
  private missing = false;

  constructor(list: ListUnixSockets = listWithSs) {
    this.list = list;
  }

  /** The inode of the socket connected to `inode`, or undefined (not connected, not Unix, or unknown). */
  async peerOf(inode: number): Promise<number | undefined> {
    const known = this.peers.get(inode);
    if (known !== undefined) return known;
    if (!this.missing && performance.now() - this.lastListing >= MISS_RETRY_MS) await this.refresh();
    return this.peers.get(inode);
  }

  /** One listing at a time; callers that come while it runs share it. */
  private refresh(): Promise<void> {
    this.listing ??= (async () => {
      try {
        const text = await this.list();
        this.lastListing = performance.now();
        if (text === 'missing') this.missing = true;
        if (text === undefined || text === 'missing') return;
        if (this.peers.size > MAX_KEPT) this.peers.clear();
        for (const [inode, peer] of parseUnixPeers(text)) this.peers.set(inode, peer);
      } finally {
        this.listing = undefined;
      }
    })();
    return this.listing;
  }
}
