/**
 * Terminals of DSH Agents: one engine hub whose owners are the exact live Agent objects.
 *
 * - Identity: each Agent object gets its own owner key (`<id>#<n>`), so an Agent that replaces a disposed
 *   one under the same session id never inherits its terminal, and a stale Agent object is refused.
 * - Creation: lazy (the hub starts the shell on first use), in the Agent's workspace, through DSH's
 *   subprocess provider, inside the session's sandbox policy. A confined mode with no working confinement
 *   refuses to start: nothing ever runs unconfined by accident.
 * - Lifetime: the terminal dies with its Agent (`agent/disposed`, and an effect on the Agent's own fiber as
 *   a second guard) and with the plugin (`close`).
 * - Sandbox fence: while a terminal is live, a `sandbox/mode` change of that session to another mode is
 *   vetoed, because the running shell keeps the confinement it started with (DSH's own terminal does this).
 * - Notices: when a human interaction settles, the Agent gets one message with metadata only. Commands a
 *   person types at the idle prompt are gathered until the terminal has been quiet for idleNoticeQuietMs
 *   (one notice, one agent turn, for the burst); a takeover is told at once.
 */
import { HumanSettleBatcher, TerminalError, TerminalHub, type HumanSettled, type TerminalConfig } from '@shared-terminal/server';
import type { NoticeConfig } from './config.ts';
import type { Agent, DshContext, SandboxExecutionPolicy, SessionEvent } from './dsh-api.ts';
import { buildHumanNotice } from './notice.ts';
import { createDshPtyProvider } from './pty-adapter.ts';

export const NOT_LIVE_MESSAGE =
  'this Agent is not the live registered Agent (it was disposed or replaced): start a new conversation turn and try again';

export class AgentTerminals {
  readonly hub: TerminalHub;
  private readonly ctx: DshContext;
  private readonly keys = new WeakMap<Agent, string>();
  private readonly agents = new Map<string, Agent>();
  private counter = 0;
  private closed = false;

  constructor(ctx: DshContext, config: TerminalConfig, notices: NoticeConfig = { idleNoticeQuietMs: 0 }) {
    this.ctx = ctx;
    this.hub = new TerminalHub({
      config,
      provider: createDshPtyProvider(() => ctx.subprocess),
      cwd: (key) => this.policy(key).workspaceRoot,
      // DSH's provider starts from its own scrubbed copy of the host environment; we only add ours.
      baseEnv: {},
      wrapArgv: (key, argv) => this.confine(key, argv),
    });
    this.hub.on('created', (owner) => {
      const batcher = new HumanSettleBatcher({ quietMs: notices.idleNoticeQuietMs, deliver: (batch) => this.notify(owner.ownerId, batch) });
      owner.on('state', (state) => batcher.setHumanActive(state.holder === 'human'));
      owner.on('human-settled', (settled) => batcher.settled(settled));
      owner.once('disposed', () => batcher.dispose());
    });
  }

  /** Whether `agent` is the exact Agent object the registry holds for its id. */
  isLive(agent: Agent): boolean {
    return !this.closed && this.ctx.agents.get(agent.id) === agent;
  }

  /** The owner key of a live Agent, registering its cleanup on first use. */
  ownerFor(agent: Agent): string {
    if (this.closed) throw new TerminalError('disposed', 'the shared terminal plugin is unloading; try again after DSH restarts it');
    if (!this.isLive(agent)) throw new TerminalError('not-live', NOT_LIVE_MESSAGE);
    const known = this.keys.get(agent);
    if (known) return known;
    const key = `${agent.id}#${++this.counter}`;
    this.keys.set(agent, key);
    this.agents.set(key, agent);
    try {
      // Second guard besides `agent/disposed`: the Agent's own fiber ends the terminal when it unwinds.
      agent.ctx.effect(() => () => this.release(agent), 'dsh-interactive-terminal: terminal of this agent');
    } catch {
      // The Agent's fiber is already unwinding; `agent/disposed` still reaches us.
    }
    return key;
  }

  /** The owner key for a browser request naming a session (an Agent id). */
  ownerForSession(sessionId: string): string {
    const agent = this.ctx.agents.get(sessionId);
    if (!agent)
      throw new TerminalError('unknown-agent', `no live Agent for session ${JSON.stringify(sessionId)}: open the conversation again`);
    return this.ownerFor(agent);
  }

  /** The live Agent behind an owner key, if it is still the registered one. */
  agentOf(key: string): Agent | undefined {
    const agent = this.agents.get(key);
    return agent && this.isLive(agent) ? agent : undefined;
  }

  /** End one Agent's terminal (its whole process tree). */
  async release(agent: Agent): Promise<void> {
    const key = this.keys.get(agent);
    if (!key) return;
    this.keys.delete(agent);
    this.agents.delete(key);
    await this.hub.dispose(key);
  }

  /** End every terminal (plugin unload); failures are reported together after all were tried. */
  async close(): Promise<void> {
    this.closed = true;
    this.agents.clear();
    await this.hub.disposeAll();
  }

  /**
   * Veto a sandbox-mode change of a session whose terminal is live or starting. Called for every event
   * dispatch, so it returns at once for anything else.
   */
  checkSandboxModeChange(eventName: string, args: unknown[]): void {
    if (eventName !== 'session/event') return;
    const [session, event] = args as [{ id?: unknown } | undefined, SessionEvent | undefined];
    if (!event || event.type !== 'sandbox/mode' || typeof session?.id !== 'string') return;
    const agent = this.ctx.agents.get(session.id);
    const key = agent && this.keys.get(agent);
    const owner = key ? this.hub.get(key) : undefined;
    if (!agent || !owner?.live) return;
    const next = (event.data as { mode?: unknown } | undefined)?.mode;
    const current = this.ctx.sandboxPolicy.resolve({ session: agent.session }).mode;
    if (next === current) return;
    throw new Error(
      `cannot change sandbox mode from "${current}" to "${String(next)}" while the shared terminal is active: ` +
        'its shell keeps the confinement it started with. Reset or close the terminal (or wait for it to be disposed) first.',
    );
  }

  // ------------------------------------------------------------------ spawning

  private agentFor(key: string): Agent {
    const agent = this.agents.get(key);
    if (!agent || !this.isLive(agent)) throw new TerminalError('not-live', NOT_LIVE_MESSAGE);
    return agent;
  }

  private policy(key: string): SandboxExecutionPolicy {
    const agent = this.agentFor(key);
    const policy = this.ctx.sandboxPolicy.resolve({ session: agent.session });
    return { ...policy, workspaceRoot: agent.session.header.cwd ?? policy.workspaceRoot };
  }

  /** The argv inside the Agent's sandbox policy; refuses rather than run unconfined. */
  private confine(key: string, argv: string[]): string[] {
    const policy = this.policy(key);
    if (policy.mode === 'danger-full-access') return argv;
    const sandbox = this.ctx.get('sandbox');
    if (!sandbox) {
      throw new TerminalError(
        'sandbox-unavailable',
        `sandbox mode "${policy.mode}" requires confinement, but no sandbox provider is mounted: the terminal was not started. ` +
          'Mount a sandbox provider, or switch this session to danger-full-access if you accept an unconfined shell.',
      );
    }
    try {
      return sandbox.confine(argv, { ...policy, mode: policy.mode }).argv;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new TerminalError(
        'sandbox-unavailable',
        `sandbox mode "${policy.mode}" could not confine the terminal (${detail}); it was not started unconfined. ` +
          'Install bwrap or use a kernel with Landlock, or switch this session to danger-full-access.',
      );
    }
  }

  // ------------------------------------------------------------------ notices

  private notify(key: string, batch: HumanSettled[]): void {
    const agent = this.agentOf(key);
    if (!agent) return;
    const message = buildHumanNotice(batch);
    try {
      if (agent.status === 'idle') agent.followup(message);
      else agent.steer(message);
    } catch (error) {
      this.ctx.logger.warn(
        `dsh-interactive-terminal: could not notify agent ${agent.id}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
