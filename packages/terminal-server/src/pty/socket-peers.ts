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
 * The sockets a process holds are its /proc/<pid>/fd links named `socket:[<inode>]`.
 *
 * A listing costs a process spawn (the server forks), so peers are kept: a connected socket's peer does not
 * change, and an inode a listing did not name is not listed for again. Without `ss`, no peer is known and
 * every socket keeps counting as a way out.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';

/** Listings come at least this far apart: a program that makes a new socket for every poll costs the
 *  server at most a few spawns a second. A look that needs one in between waits for it. */
const MIN_LISTING_GAP_MS = 250;
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

/** One run of the listing: when it started, and whether it named the sockets (false: it failed). */
interface Listing {
  startedAt: number;
  done: Promise<boolean>;
}

export class SocketPeers {
  private readonly list: ListUnixSockets;
  private readonly peers = new Map<number, number>();
  /** Inodes that a listing started after they were asked for did not name: no connected Unix socket (a
   *  TCP connection, a listening socket). Not listed for again, or a relay over TCP would list every look. */
  private readonly missed = new Set<number>();
  private lastListing = Number.NEGATIVE_INFINITY;
  private listing: Listing | undefined;
  private missing = false;

  constructor(list: ListUnixSockets = listWithSs) {
    this.list = list;
  }

  /** The inode of the socket connected to `inode`, or undefined (not connected, not Unix, or unknown). */
  async peerOf(inode: number): Promise<number | undefined> {
    const askedAt = performance.now();
    for (;;) {
      const known = this.peers.get(inode);
      if (known !== undefined || this.missing || this.missed.has(inode)) return known;
      const listing = this.listing ?? (await this.nextListing());
      const named = await listing.done;
      if (this.peers.has(inode)) return this.peers.get(inode);
      if (!named) return undefined;
      // A listing that began before the question may predate the socket: one more, then it is settled.
      if (listing.startedAt >= askedAt) {
        remember(this.missed, inode);
        return undefined;
      }
    }
  }

  /** The listing in progress, or a new one once MIN_LISTING_GAP_MS has passed since the last. */
  private async nextListing(): Promise<Listing> {
    const wait = this.lastListing + MIN_LISTING_GAP_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.listing) return this.listing;
    const startedAt = performance.now();
    const listing: Listing = { startedAt, done: this.run() };
    this.listing = listing;
    return listing;
  }

  private async run(): Promise<boolean> {
    try {
      const text = await this.list();
      if (text === 'missing') this.missing = true;
      if (text === undefined || text === 'missing') return false;
      for (const [inode, peer] of parseUnixPeers(text)) {
        if (this.peers.size >= MAX_KEPT) this.peers.clear();
        this.peers.set(inode, peer);
      }
      return true;
    } finally {
      this.lastListing = performance.now();
      this.listing = undefined;
    }
  }
}

function remember(set: Set<number>, inode: number): void {
  if (set.size >= MAX_KEPT) set.clear();
  set.add(inode);
}

/** The inode of socket `fd` of `pid`, or undefined when it is no socket (or gone). */
export function socketInode(pid: number, fd: number): number | undefined {
  try {
    const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The inodes of every socket `pid` holds. */
export function socketInodes(pid: number): Set<number> {
  const inodes = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    const inode = socketInode(pid, Number(fd));
    if (inode !== undefined) inodes.add(inode);
  }
  return inodes;
}
