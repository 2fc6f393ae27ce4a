/**
 * What an agent needs to hear while it is not calling a tool: a human interaction settled (idle input or
 * a takeover is over, so the agent should read the terminal), or its terminal was disposed. The relay
 * listens to every owner of the hub, so the events stream and MCP notifications need no transport.
 */
import { EventEmitter } from 'node:events';
import type { HumanSettled, OwnerTerminal, TerminalHub } from '@shared-terminal/server';

/** The JSON an agent receives (events stream data, MCP notification data). */
export interface HumanSettledEvent {
  event: 'human-settled';
  agent: string;
  /** `idle`: the human typed at the idle prompt; `takeover`: the human took over a model send. */
  origin: HumanSettled['origin'];
  waitReason: HumanSettled['waitReason'];
  generation: number;
  exitCode: number | null;
  /** What to do next, for a model reading the event. */
  message: string;
}

export interface AgentDisposedEvent {
  event: 'agent-disposed';
  agent: string;
  message: string;
}

export type AgentEvent = HumanSettledEvent | AgentDisposedEvent;

export function describeSettled(settled: HumanSettled): HumanSettledEvent {
  const how = settled.origin === 'takeover' ? 'after taking over your send' : 'at the idle prompt';
  return {
    event: 'human-settled',
    agent: settled.ownerId,
    origin: settled.origin,
    waitReason: settled.waitReason,
    generation: settled.generation,
    exitCode: settled.exitCode ?? null,
    message:
      `The human finished an interaction in the shared terminal ${how} (waitReason ${settled.waitReason}). ` +
      'Call shared_terminal_read before sending more input or signals.',
  };
}

export class AgentEventRelay extends EventEmitter<{ event: [AgentEvent] }> {
  private readonly hub: TerminalHub;
  private readonly onCreated = (owner: OwnerTerminal) => {
    owner.on('human-settled', (settled) => this.emit('event', describeSettled(settled)));
  };
  private readonly onDisposed = (agent: string) => {
    this.emit('event', {
      event: 'agent-disposed',
      agent,
      message: `The terminal of agent ${agent} was disposed; the next tool call starts a new one.`,
    });
  };

  constructor(hub: TerminalHub) {
    super();
    this.setMaxListeners(0);
    this.hub = hub;
    for (const id of hub.ids()) {
      const owner = hub.get(id);
      if (owner) this.onCreated(owner);
    }
    hub.on('created', this.onCreated);
    hub.on('disposed', this.onDisposed);
  }

  close(): void {
    this.hub.off('created', this.onCreated);
    this.hub.off('disposed', this.onDisposed);
    this.removeAllListeners();
  }
}
