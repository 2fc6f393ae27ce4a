/**
 * No process of a terminal outlives its server, even a `kill -9` of the server. Two parts (Linux):
 *
 * - A cgroup v2 per terminal, where the host lets this process create cgroups below its own (root, or a
 *   delegated systemd user slice) and the kernel has `cgroup.kill` (5.14+). The shell enters its cgroup
 *   before it execs, so everything it ever starts is inside (`setsid`, double forks, `env -i` included),
 *   and ending the terminal kills the cgroup as a whole.
 * - A watchdog: one small `/bin/sh` process per server, in a session of its own and deaf to HUP/INT/TERM,
 *   that holds a pipe from the server. The kernel closes the pipe when the server dies however it dies;
 *   the watchdog then kills the server's cgroups, and (where there are none) every process in a terminal's
 *   session or carrying its tree mark (see process-tree.ts), then exits.
 *
 * Without a cgroup a process that leaves the session *and* clears its environment (`setsid env -i cmd &`)
 * escapes both; elsewhere than Linux neither part exists. SHARED_TERMINAL_CGROUP=off turns the cgroups off
 * (the watchdog alone), e.g. to test that fallback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep } from '../time.ts';
import { PROCESS_TREE_VARIABLE } from './process-tree.ts';
import { statFields } from './procfs.ts';

/** What a host gets: `cgroup` (cgroups and the watchdog), `watchdog` (the watchdog alone), `none`. */
export type ContainmentMode = 'cgroup' | 'watchdog' | 'none';

/** One terminal's containment: wrap its argv before the spawn, report its pid after, end it at the end. */
export interface TerminalContainment {
  readonly cgroup: string | undefined;
  wrap(argv: string[]): string[];
  started(pid: number, treeMark: string): void;
  /** Kill whatever is left in the terminal's cgroup and remove it; the watchdog forgets the terminal. */
  end(): Promise<void>;
}

/**
 * The watchdog. Lines on stdin: `add SID MARK START` (START: the shell's start time, field 22 of its
 * /proc stat), `forget SID`. At end of input (the server is gone) it kills the cgroups below $1, then twice
 * (a fork may race the first pass) every process in a known session or carrying a known mark, then removes
 * the cgroups once empty. A session whose leader is alive with another start time is not the shell's (the
 * pid was reused): it is left alone.
 */
const WATCHDOG_SCRIPT = `
trap '' HUP INT TERM QUIT PIPE
root=$1
entries=''
while read -r verb sid mark start; do
  case $verb in
    add) entries="$entries $sid:$mark:$start" ;;
    forget) kept=''; for e in $entries; do [ "\${e%%:*}" = "$sid" ] || kept="$kept $e"; done; entries=$kept ;;
  esac
done
[ -n "$root" ] && [ -e "$root/cgroup.kill" ] && echo 1 > "$root/cgroup.kill" 2>/dev/null
sids=''; patterns=''
for e in $entries; do
  sid=\${e%%:*}; rest=\${e#*:}; mark=\${rest%%:*}; start=\${rest#*:}
  patterns="$patterns -e ${PROCESS_TREE_VARIABLE}=$mark"
  if { read -r stat < "/proc/$sid/stat"; } 2>/dev/null; then
    set -- \${stat##*) }
    [ "\${20}" = "$start" ] || continue
  fi
  sids="$sids $sid"
done
sweep() {
  [ -n "$entries" ] || return 0
  for dir in /proc/[0-9]*; do
    pid=\${dir#/proc/}
    [ "$pid" = "$$" ] && continue
    { read -r stat < "$dir/stat"; } 2>/dev/null || continue
    set -- \${stat##*) }
    case " $sids " in *" $4 "*) kill -KILL "$pid" 2>/dev/null ;; esac
  done
  for file in $(grep -las $patterns /proc/[0-9]*/environ 2>/dev/null); do
    pid=\${file#/proc/}; pid=\${pid%/environ}
    [ "$pid" = "$$" ] || kill -KILL "$pid" 2>/dev/null
  done
}
sweep; sleep 0.2; sweep
if [ -n "$root" ]; then
  tries=0
  while [ -d "$root" ] && [ $tries -lt 100 ]; do
    for dir in "$root"/*/; do [ -d "$dir" ] && rmdir "$dir" 2>/dev/null; done
    rmdir "$root" 2>/dev/null || { tries=$((tries + 1)); sleep 0.1; }
  done
fi
`;

/** `echo $$ > $0/cgroup.procs; exec "$@"`: the shell is in its cgroup before its first instruction. */
const ENTER_CGROUP = 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"';

interface Supervisor {
  mode: ContainmentMode;
  /** This server's cgroup, parent of the terminals' (cgroup mode). */
  root: string | undefined;
  watchdog: ChildProcess | undefined;
  next: number;
}

let supervisor: Supervisor | undefined;

/** The cgroup v2 directory this process may create terminal cgroups in, or undefined. */
function cgroupParent(): string | undefined {
  if (process.env['SHARED_TERMINAL_CGROUP'] === 'off') return undefined;
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'))
      ?.slice(3);
    if (own === undefined) return undefined;
    // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPER
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2' && fields[3] === '/');
    if (!mount) return undefined;
    const dir = join(mount[4]!, own);
    accessSync(join(dir, 'cgroup.procs'), fsConstants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

function startSupervisor(): Supervisor {
  if (process.platform !== 'linux') return { mode: 'none', root: undefined, watchdog: undefined, next: 0 };
  let root: string | undefined;
  const parent = cgroupParent();
  if (parent) {
    const dir = join(parent, `shared-terminal.${process.pid}`);
    try {
      mkdirSync(dir);
      root = dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') root = dir;
    }
    // cgroup.kill came with Linux 5.14 (the root cgroup has none, so look in ours).
    if (root && !existsSync(join(root, 'cgroup.kill'))) {
      try {
        rmdirSync(root);
      } catch {
        // leave it
      }
      root = undefined;
    }
  }
  let watchdog: ChildProcess | undefined;
  try {
    watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'shared-terminal-watchdog', root ?? ''], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    // The pipe must not keep this process alive: its end is the signal.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    watchdog = undefined;
  }
  if (!watchdog && root) {
    try {
      rmdirSync(root);
    } catch {
      // in use by an earlier start of this pid: leave it
    }
    root = undefined;
  }
  return { mode: root ? 'cgroup' : watchdog ? 'watchdog' : 'none', root, watchdog, next: 0 };
}

function getSupervisor(): Supervisor {
  supervisor ??= startSupervisor();
  return supervisor;
}

/** What this host gets (starts the watchdog on first use). */
export function containmentMode(): ContainmentMode {
  return getSupervisor().mode;
}

function tell(line: string): void {
  const stdin = getSupervisor().watchdog?.stdin;
  if (stdin && stdin.writable) stdin.write(`${line}\n`);
}

/** Kill every process of a cgroup and remove it (waits for the kernel to empty it, at most ~2 s). */
async function killCgroup(dir: string): Promise<void> {
  await writeFile(join(dir, 'cgroup.kill'), '1').catch(() => undefined);
  for (let i = 0; i < 100; i++) {
    const events = await readFile(join(dir, 'cgroup.events'), 'utf8').catch(() => undefined);
    if (events === undefined) return; // gone already
    if (/^populated 0$/m.test(events)) break;
    await sleep(20);
  }
  await rmdir(dir).catch(() => undefined);
}

/** A process's start time (field 22 of /proc/PID/stat), which tells it from a later process of that pid. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return statFields(stat)[19] ?? '0';
  } catch {
    return '0';
  }
}

/** A new terminal's containment. */
export function openContainment(): TerminalContainment {
  const sup = getSupervisor();
  let cgroup: string | undefined;
  if (sup.root) {
    const dir = join(sup.root, `t${++sup.next}`);
    try {
      mkdirSync(dir);
      cgroup = dir;
    } catch {
      cgroup = undefined;
    }
  }
  let pid: number | undefined;
  let ended = false;
  return {
    cgroup,
    wrap: (argv) => (cgroup ? ['/bin/sh', '-c', ENTER_CGROUP, cgroup, ...argv] : argv),
    started(shellPid, treeMark) {
      pid = shellPid;
      tell(`add ${shellPid} ${treeMark} ${startTime(shellPid)}`);
    },
    async end() {
      if (ended) return;
      ended = true;
      if (cgroup) await killCgroup(cgroup);
      if (pid !== undefined) tell(`forget ${pid}`);
    },
  };
}
