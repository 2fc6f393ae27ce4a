/**
 * Reading one process's small /proc files, by path or through descriptors kept open.
 *
 * Opening /proc/<pid>/<file> walks the path and checks access every time: about three quarters of a
 * small read's cost. The shell of a terminal is looked at on every prompt, so its files stay open and are
 * read again from offset 0 (each read of a /proc file at offset 0 renders it anew). A kept descriptor
 * stays bound to the process it was opened for: once that process is gone its reads fail, and a pid
 * reused by another process is never read through it.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/** What the inspector reads of one process. Every method returns undefined once it cannot be read. */
export interface ProcessReader {
  readonly pid: number;
  /** A file under /proc/<pid>/, as text ('stat', 'task/<tid>/syscall'). */
  text(name: string): string | undefined;
  /** The same, as bytes ('auxv'). */
  bytes(name: string): Buffer | undefined;
  /** `length` bytes of the process's memory at `address` (/proc/<pid>/mem). */
  memory(address: number, length: number): Buffer | undefined;
}

/** Larger reads than this are refused: a wait's pollfd array or fd_set is a few hundred bytes at most. */
const MAX_MEMORY_READ = 65536;

/** Every read goes through one buffer (reads are synchronous); a file that fills it is read whole by path. */
const shared = Buffer.allocUnsafe(4096);

function validRange(address: number, length: number): boolean {
  return length > 0 && length <= MAX_MEMORY_READ && Number.isSafeInteger(address) && address > 0;
}

/** A process's files, each opened by path for each read: for processes looked at once or rarely. */
export function processByPath(pid: number): ProcessReader {
  return {
    pid,
    text(name) {
      try {
        return readFileSync(`/proc/${pid}/${name}`, 'utf8');
      } catch {
        return undefined;
      }
    },
    bytes(name) {
      try {
        return readFileSync(`/proc/${pid}/${name}`);
      } catch {
        return undefined;
      }
    },
    memory(address, length) {
      if (!validRange(address, length)) return undefined;
      let fd: number | undefined;
      try {
        fd = openSync(`/proc/${pid}/mem`, 'r');
        const buffer = Buffer.alloc(length);
        return readSync(fd, buffer, 0, length, address) === length ? buffer : undefined;
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
  };
}

/**
 * The files kept open, of the process or of its main thread. Most show the task as it is at each read;
 * `mem` reads the address space of its opening (see memory). `auxv` is left out: it too is bound to that
 * address space, and after an exec reads as empty rather than failing.
 */
const KEPT_FILES = new Set(['stat', 'syscall', 'io', 'mem']);
/**
 * The standard descriptors' fdinfo is kept too: each read looks the descriptor up anew, so it shows the
 * file open under that number now, and fails while none is. Other descriptors come and go.
 */
const KEPT_FDINFO = new Set(['fdinfo/0', 'fdinfo/1', 'fdinfo/2']);
/** At most this many stay open at once (the names above, the first ones both ways). */
const MAX_KEPT = 12;

/** A process's files kept open: for the shell, looked at on every prompt. `close` when it is done with. */
export class KeptProcessFiles implements ProcessReader {
  readonly pid: number;
  private readonly fds = new Map<string, number>();
  private readonly byPath: ProcessReader;
  private closed = false;
  /** How many times `mem` was opened: each opening reads one address space. */
  private memoryOpenings = 0;
  /** The opening the latest whole memory read went through. */
  private lastReadOpening: number | undefined;
  /** Whole memory reads so far. */
  private wholeReads = 0;

  constructor(pid: number) {
    this.pid = pid;
    this.byPath = processByPath(pid);
  }

  text(name: string): string | undefined {
    return this.bytes(name)?.toString('utf8');
  }

  bytes(name: string): Buffer | undefined {
    const fd = this.fd(name);
    if (fd === undefined) return this.byPath.bytes(name);
    const length = this.readFrom(fd, name);
    if (length === undefined) return undefined;
    return length < shared.length ? Buffer.from(shared.subarray(0, length)) : this.byPath.bytes(name);
  }

  /**
   * The memory descriptor reads the address space the process had when it was opened. Once an exec has
   * replaced that space it reads nothing (no bytes, where an unmapped address fails with EIO), and is
   * opened again once.
   */
  memory(address: number, length: number): Buffer | undefined {
    if (!validRange(address, length)) return undefined;
    const buffer = Buffer.alloc(length);
    for (let attempt = 0; attempt < 2; attempt++) {
      const fd = this.fd('mem');
      if (fd === undefined) return undefined;
      let read: number;
      try {
        read = readSync(fd, buffer, 0, length, address);
      } catch {
        return undefined; // not mapped in this address space
      }
      if (read === length) {
        this.wholeReads += 1;
        this.lastReadOpening = this.memoryOpenings;
        return buffer;
      }
      if (read > 0) return undefined; // runs into an unmapped page
      this.forget('mem');
    }
    return undefined;
  }

  /** Whole memory reads so far: a caller tells by it whether its own reads read anything. */
  get memoryReads(): number {
    return this.wholeReads;
  }

  /**
   * The address space the latest whole memory read came from, numbered by the opening it went through:
   * the same number is the same program image, as the descriptor reads no other.
   */
  get addressSpace(): number | undefined {
    return this.lastReadOpening;
  }

  close(): void {
    this.closed = true;
    for (const name of [...this.fds.keys()]) this.forget(name);
  }

  /** Read a kept file from its start into the shared buffer: the byte count, or undefined. */
  private readFrom(fd: number, name: string): number | undefined {
    try {
      return readSync(fd, shared, 0, shared.length, 0);
    } catch {
      this.forget(name);
      return undefined;
    }
  }

  private fd(name: string): number | undefined {
    let fd = this.fds.get(name);
    if (fd !== undefined || this.closed || this.fds.size >= MAX_KEPT || !this.keeps(name)) return fd;
    try {
      fd = openSync(`/proc/${this.pid}/${name}`, 'r');
    } catch {
      return undefined;
    }
    this.fds.set(name, fd);
    if (name === 'mem') this.memoryOpenings += 1;
    return fd;
  }

  /** Files of the process itself and of its main thread, and the standard descriptors' fdinfo; those of
   *  other descriptors or threads come and go, and are read by path. */
  private keeps(name: string): boolean {
    if (KEPT_FDINFO.has(name)) return true;
    const main = `task/${this.pid}/`;
    const file = name.startsWith(main) ? name.slice(main.length) : name.includes('/') ? undefined : name;
    return file !== undefined && KEPT_FILES.has(file);
  }

  private forget(name: string): void {
    const fd = this.fds.get(name);
    if (fd === undefined) return;
    this.fds.delete(name);
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}
