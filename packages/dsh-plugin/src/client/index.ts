/**
 * dsh-interactive-terminal, client half: mounts `<shared-terminal>` in DSH Web's `conversation.input.dock`
 * slot (above the chat input) for the conversation's Agent.
 *
 * The bundle is a classic script in DSH's client module format (see tsup.config.ts). It exports `inject`
 * and `apply`. Required services are only `slots` and `connection`; language and theme are followed when
 * DSH provides them (`locale`, `theme`), so a missing optional service can never block DSH's boot.
 *
 * Tokens come from the server half over DSH's RPC channel (`/dsh-interactive-terminal`, endpoint
 * `token`), one per connection attempt; the element opens `ws(s)://<this host>/dsh-interactive-terminal/ws`.
 */
import '@shared-terminal/element';
import type { Connector } from '@shared-terminal/server/protocol';
import { sessionConnector } from './connector.ts';
import { COPY, NS } from './copy.ts';
import { TerminalDock, type DockServices, type SessionPanel } from './dock.ts';
import type { ClientContext } from './dsh-client-api.ts';
import { createEnvironmentStore } from './environment.ts';

export const inject = ['slots', 'connection'];

export function apply(ctx: ClientContext): void {
  const locale = ctx.get('locale');
  if (locale) ctx.effect(() => locale.register(NS, { zh: { ...COPY.zh }, en: { ...COPY.en } }), 'dsh-interactive-terminal: copy');
  const environment = createEnvironmentStore(ctx);
  const panels = new Map<string, SessionPanel>();
  ctx.effect(
    () => () => {
      for (const panel of panels.values()) panel.element.remove();
      panels.clear();
    },
    'dsh-interactive-terminal: panels',
  );

  const connector = (sessionId: string): Connector => sessionConnector(ctx.connection, sessionId, () => location.href);

  const services: DockServices = {
    environment,
    connector,
    panel(sessionId) {
      let panel = panels.get(sessionId);
      if (!panel) {
        const element = document.createElement('shared-terminal');
        element.dataset['sessionId'] = sessionId;
        // Collapsed until the person expands it with the element's own toggle: no shell before that.
        element.setAttribute('collapsed', '');
        (element as HTMLElement & { connector?: Connector }).connector = connector(sessionId);
        panel = { element };
        panels.set(sessionId, panel);
      }
      return panel;
    },
  };

  ctx.slots.inject('conversation.input.dock', () =>
    ctx.slots.register(
      { name: 'conversation.input.dock', id: 'dsh-interactive-terminal', order: 100, inject: () => ({ services }) },
      TerminalDock,
    ),
  );
}
