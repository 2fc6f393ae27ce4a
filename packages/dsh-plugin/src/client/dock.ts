/**
 * The dock above the chat input: this session's `<shared-terminal>` element, collapsed until the person
 * expands it with the element's own toggle (▸ Terminal). The element's header is the one control: the
 * shell starts at the first expansion (or at the model's first terminal tool call), and collapsing keeps
 * the shell, the socket and any lease.
 *
 * DSH may unmount and remount slot components at any time (a composer takeover hides the dock, a session
 * switch remounts it), so the element (xterm and WebSocket) lives in a per-session cache owned by the
 * plugin, and the component only attaches it to its container. The element keeps its own collapsed state.
 */
import { createElement as h, useEffect, useRef, useSyncExternalStore } from 'react';
import type { Connector } from '@shared-terminal/server/protocol';
import { copyFor } from './copy.ts';
import type { EnvironmentStore } from './environment.ts';

export const DOCK_TEST_ID = 'dsh-interactive-terminal-dock';

export interface SessionPanel {
  readonly element: HTMLElement;
}

export interface DockServices {
  environment: EnvironmentStore;
  /** This session's panel, created collapsed on first use (it connects when first expanded). */
  panel(sessionId: string): SessionPanel;
  connector(sessionId: string): Connector;
}

export interface DockProps {
  sessionId: string;
  services: DockServices;
}

const STYLE_ID = 'dsh-interactive-terminal-style';
const STYLE = `
.dsh-it-dock{box-sizing:border-box;width:100%;max-width:var(--dsh-composer-card-max-width,100%);margin:0 auto 6px;display:flex;flex-direction:column}
.dsh-it-dock shared-terminal{display:block;width:100%;--shared-terminal-max-height:min(45vh,520px)}
`;

function ensureStyle(): void {
  if (typeof document === 'undefined' || document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.dataset['plugin'] = 'dsh-interactive-terminal';
  style.textContent = STYLE;
  document.head.appendChild(style);
}

/** Apply the environment to the element (language, colour scheme, read only on touch devices). */
export function syncElement(element: HTMLElement, env: ReturnType<EnvironmentStore['get']>): void {
  element.setAttribute('lang', env.lang);
  element.setAttribute('theme', env.colorScheme);
  element.style.colorScheme = env.colorScheme;
  element.toggleAttribute('readonly', env.touch);
}

export function TerminalDock({ sessionId, services }: DockProps) {
  ensureStyle();
  const env = useSyncExternalStore(services.environment.subscribe, services.environment.get);
  const host = useRef<HTMLDivElement>(null);
  const panel = services.panel(sessionId);
  const copy = copyFor(env.lang);

  useEffect(() => {
    const container = host.current;
    if (!container) return;
    syncElement(panel.element, env);
    if (panel.element.parentElement !== container) container.appendChild(panel.element);
  });
  useEffect(() => {
    const container = host.current;
    return () => {
      // A remount keeps the element (and its connection); it only leaves this container.
      if (container && panel.element.parentElement === container) container.removeChild(panel.element);
    };
  }, [panel]);

  return h('div', { className: 'dsh-it-dock', 'data-testid': DOCK_TEST_ID, role: 'region', 'aria-label': copy.label, ref: host });
}
