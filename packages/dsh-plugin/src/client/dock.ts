/**
 * The dock above the chat input: an `Open terminal` control and, once opened, this session's
 * `<shared-terminal>` element.
 *
 * DSH may unmount and remount slot components at any time (a composer takeover hides the dock, a session
 * switch remounts it), so the element (xterm and WebSocket) lives in a per-session cache owned by the
 * plugin, and the component only attaches it to its container. Hiding keeps the shell; so does a remount.
 */
import { createElement as h, useEffect, useReducer, useRef, useSyncExternalStore } from 'react';
import type { Connector } from '@shared-terminal/server/protocol';
import { copyFor } from './copy.ts';
import type { EnvironmentStore } from './environment.ts';

export const DOCK_TEST_ID = 'dsh-interactive-terminal-dock';

export interface SessionPanel {
  readonly element: HTMLElement;
  /** Shown now. */
  open: boolean;
  /** Opened at least once: the element exists in the page and keeps its connection while hidden. */
  opened: boolean;
}

export interface DockServices {
  environment: EnvironmentStore;
  /** This session's panel, created on first use (the element connects when it is opened). */
  panel(sessionId: string): SessionPanel;
  connector(sessionId: string): Connector;
}

export interface DockProps {
  sessionId: string;
  services: DockServices;
}

const STYLE_ID = 'dsh-interactive-terminal-style';
const STYLE = `
.dsh-it-dock{box-sizing:border-box;width:100%;max-width:var(--dsh-composer-card-max-width,100%);margin:0 auto 6px;display:flex;flex-direction:column;gap:6px}
.dsh-it-bar{display:flex;align-items:center;gap:8px}
.dsh-it-toggle{font:inherit;font-size:13px;line-height:20px;padding:2px 10px;border-radius:8px;cursor:pointer;
  border:1px solid var(--dsw-alias-border-l2,#ccc);background:var(--dsw-alias-bg-base,transparent);color:var(--dsw-alias-label-primary,inherit)}
.dsh-it-toggle:focus-visible{outline:2px solid var(--dsw-alias-state-business-primary,#3b82f6);outline-offset:1px}
.dsh-it-note{font-size:12px;color:var(--dsw-alias-label-tertiary,#888)}
.dsh-it-host[hidden]{display:none}
.dsh-it-host shared-terminal{display:block;width:100%;--shared-terminal-max-height:min(45vh,520px)}
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
  const [, rerender] = useReducer((n: number) => n + 1, 0);

  useEffect(() => {
    const container = host.current;
    if (!container || !panel.opened) return;
    syncElement(panel.element, env);
    panel.element.toggleAttribute('collapsed', !panel.open);
    if (panel.element.parentElement !== container) container.appendChild(panel.element);
  });
  useEffect(() => {
    // The element's own collapse control and ours stay one state.
    const onToggle = (event: Event) => {
      panel.open = !(event as CustomEvent<{ collapsed: boolean }>).detail.collapsed;
      rerender();
    };
    panel.element.addEventListener('shared-terminal-toggle', onToggle);
    const container = host.current;
    return () => {
      panel.element.removeEventListener('shared-terminal-toggle', onToggle);
      // A remount keeps the element (and its connection); it only leaves this container.
      if (container && panel.element.parentElement === container) container.removeChild(panel.element);
    };
  }, [panel]);

  const toggle = () => {
    panel.open = !panel.open;
    panel.opened = true;
    rerender();
  };

  return h(
    'div',
    { className: 'dsh-it-dock', 'data-testid': DOCK_TEST_ID, role: 'region', 'aria-label': copy.label },
    h(
      'div',
      { className: 'dsh-it-bar' },
      h('button', { type: 'button', className: 'dsh-it-toggle', 'aria-expanded': panel.open, onClick: toggle }, panel.open ? copy.close : copy.open),
      env.touch ? h('span', { className: 'dsh-it-note' }, copy.readonly) : null,
    ),
    h('div', { className: 'dsh-it-host', ref: host, hidden: !panel.open }),
  );
}
