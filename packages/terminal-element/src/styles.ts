/**
 * The element's styles: xterm.js's own stylesheet (adopted into the shadow root, where the renderer lives)
 * and the panel around it. Every colour is a CSS custom property with a light and a dark default.
 */
import { css, unsafeCSS } from 'lit';
import xtermCss from '@xterm/xterm/css/xterm.css?inline';

export const xtermStyles = unsafeCSS(xtermCss);

/** The dark theme's colours: for theme="dark", and for theme="auto" on a dark page. */
const darkColours = css`
  --st-bg: var(--shared-terminal-background, #0d1117);
  --st-fg: var(--shared-terminal-foreground, #e6edf3);
  --st-cursor: var(--shared-terminal-cursor, #e6edf3);
  --st-selection: var(--shared-terminal-selection, rgba(56, 139, 253, 0.35));
  --st-panel-bg: var(--shared-terminal-panel-background, #161b22);
  --st-panel-fg: var(--shared-terminal-panel-foreground, #e6edf3);
  --st-muted: var(--shared-terminal-muted, #9198a1);
  --st-border: var(--shared-terminal-border, #3d444d);
  --st-accent: var(--shared-terminal-accent, #4493f8);
  --st-accent-fg: var(--shared-terminal-accent-foreground, #0d1117);
  --st-danger: var(--shared-terminal-danger, #f85149);
  --st-warning: var(--shared-terminal-warning, #d29922);
  --st-focus: var(--shared-terminal-focus-ring, #4493f8);
  color-scheme: dark;
`;

export const panelStyles = css`
  :host {
    --st-bg: var(--shared-terminal-background, #ffffff);
    --st-fg: var(--shared-terminal-foreground, #1f2328);
    --st-cursor: var(--shared-terminal-cursor, #1f2328);
    --st-selection: var(--shared-terminal-selection, rgba(9, 105, 218, 0.25));
    --st-panel-bg: var(--shared-terminal-panel-background, #f6f8fa);
    --st-panel-fg: var(--shared-terminal-panel-foreground, #1f2328);
    --st-muted: var(--shared-terminal-muted, #59636e);
    --st-border: var(--shared-terminal-border, #d1d9e0);
    --st-accent: var(--shared-terminal-accent, #0969da);
    --st-accent-fg: var(--shared-terminal-accent-foreground, #ffffff);
    --st-danger: var(--shared-terminal-danger, #cf222e);
    --st-warning: var(--shared-terminal-warning, #9a6700);
    --st-focus: var(--shared-terminal-focus-ring, #0969da);
    --st-font: var(--shared-terminal-font-family, ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, 'Noto Sans Mono CJK SC', monospace);
    --st-ui-font: var(--shared-terminal-ui-font, system-ui, -apple-system, 'Segoe UI', 'Noto Sans', sans-serif);
    --st-radius: var(--shared-terminal-radius, 8px);
    display: block;
    color: var(--st-panel-fg);
    font-family: var(--st-ui-font);
    font-size: 13px;
    color-scheme: light;
    /* Text properties a host page passes down (a template's "#root { text-align: center }" centred every
       row): the terminal lays out its own text, so each is reset here, where inheritance enters. */
    text-align: start;
    text-indent: 0;
    text-transform: none;
    letter-spacing: normal;
    word-spacing: normal;
    line-height: normal;
    white-space: normal;
    direction: ltr;
    writing-mode: horizontal-tb;
    word-break: normal;
    overflow-wrap: normal;
    text-shadow: none;
    font-style: normal;
    font-weight: normal;
    font-variant: normal;
  }
  :host([theme='dark']) {
    ${darkColours}
  }
  /* theme="auto" follows the page's colour scheme (the element reads xterm's colours again when it changes). */
  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      ${darkColours}
    }
  }
  :host([hidden]) {
    display: none;
  }
  .panel {
    background: var(--st-panel-bg);
    border: 1px solid var(--st-border);
    border-radius: var(--st-radius);
    overflow: hidden;
  }
  .header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px 10px;
    padding: 6px 8px;
  }
  .status {
    flex: 1 1 240px;
    min-width: 0;
    color: var(--st-muted);
  }
  .status .role {
    color: var(--st-panel-fg);
    font-weight: 600;
  }
  .status .sep {
    opacity: 0.6;
    white-space: pre;
  }
  .status .waiting,
  .status .input-wait {
    color: var(--st-warning);
    font-weight: 600;
  }
  .status .state-failed,
  .status .state-disposed {
    color: var(--st-danger);
  }
  .actions {
    display: flex;
    gap: 6px;
    align-items: center;
    position: relative;
  }
  button {
    font: inherit;
    color: inherit;
    background: transparent;
    border: 1px solid var(--st-border);
    border-radius: 6px;
    padding: 3px 10px;
    cursor: pointer;
    line-height: 1.4;
  }
  button:hover:not(:disabled) {
    background: color-mix(in srgb, var(--st-accent) 10%, transparent);
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.45;
  }
  button:focus-visible {
    outline: 2px solid var(--st-focus);
    outline-offset: 2px;
  }
  .viewport:focus-within {
    outline: 2px solid var(--st-focus);
    outline-offset: -2px;
  }
  button.primary:not(:disabled) {
    background: var(--st-accent);
    border-color: var(--st-accent);
    color: var(--st-accent-fg);
  }
  button.danger {
    color: var(--st-danger);
    border-color: var(--st-danger);
  }
  button.danger.primary:not(:disabled) {
    background: var(--st-danger);
    color: #ffffff;
  }
  .toggle {
    border: none;
    font-weight: 600;
    padding-left: 4px;
  }
  .toggle .chevron {
    display: inline-block;
    transition: transform 120ms ease;
  }
  .toggle[aria-expanded='true'] .chevron {
    transform: rotate(90deg);
  }
  .menu {
    position: absolute;
    right: 0;
    top: calc(100% + 4px);
    z-index: 10;
    min-width: 200px;
    display: flex;
    flex-direction: column;
    padding: 4px;
    background: var(--st-panel-bg);
    border: 1px solid var(--st-border);
    border-radius: 6px;
    box-shadow: 0 6px 18px rgba(0, 0, 0, 0.18);
  }
  .menu[hidden] {
    display: none;
  }
  .menu [role^='menuitem'] {
    border: none;
    text-align: left;
    border-radius: 4px;
  }
  .menu .font-row {
    display: flex;
    gap: 4px;
    align-items: center;
    padding: 2px 0;
  }
  .menu .font-row span {
    flex: 1;
    padding-left: 10px;
    color: var(--st-muted);
  }
  .menu hr {
    border: none;
    border-top: 1px solid var(--st-border);
    margin: 4px 0;
    width: 100%;
  }
  .confirm {
    margin: 0 8px 8px;
    padding: 10px 12px;
    border: 1px solid var(--st-danger);
    border-radius: 6px;
    background: color-mix(in srgb, var(--st-danger) 6%, var(--st-panel-bg));
  }
  .confirm h2 {
    font-size: 1em;
    margin: 0 0 4px;
  }
  .confirm p {
    margin: 0 0 8px;
  }
  .confirm .buttons {
    display: flex;
    gap: 8px;
  }
  .notices {
    display: flex;
    flex-direction: column;
    gap: 4px;
    margin: 0 8px;
  }
  .notices:not(:empty) {
    margin-bottom: 6px;
  }
  .notice {
    display: flex;
    gap: 8px;
    align-items: center;
    padding: 4px 8px;
    border-radius: 6px;
    border-left: 3px solid var(--st-warning);
    background: color-mix(in srgb, var(--st-warning) 10%, var(--st-panel-bg));
  }
  .notice.error {
    border-left-color: var(--st-danger);
    background: color-mix(in srgb, var(--st-danger) 8%, var(--st-panel-bg));
  }
  .notice span {
    flex: 1;
  }
  .notice button {
    border: none;
    padding: 0 6px;
  }
  .body {
    border-top: 1px solid var(--st-border);
    background: var(--st-bg);
  }
  /* Collapsed keeps the renderer laid out (it can still measure its font) but out of sight and focus. */
  .body.collapsed {
    height: 0;
    overflow: hidden;
    visibility: hidden;
    border-top: none;
  }
  .viewport {
    overflow: auto;
    max-height: var(--shared-terminal-max-height, 70vh);
    resize: vertical;
    padding: 4px;
  }
  .xterm-host {
    display: inline-block;
    min-width: 100%;
    position: relative;
  }
  /* xterm's DOM renderer makes each run of one style an inline-block (to fill the row's height with its
     background). Every inline-block is a layout box of its own: a screen of many colours is ~1,000 of them,
     and laying them out was half of each frame in a flood. Plain inline runs look the same pixel for pixel
     (the row's height is the font's own, so a run's background fills it) at a third of the layout cost.
     The cursor keeps its block (its underline and bar shapes need a height). */
  .xterm .xterm-rows span:not(.xterm-cursor) {
    display: inline !important;
  }
  /* The flood screen (renderer/flood-screen.ts): over the rows, under the selection; the pointer goes through to xterm. */
  .xterm .flood-screen {
    position: absolute;
    top: 0;
    left: 0;
    pointer-events: none;
  }
  .xterm .flood-screen[hidden] {
    display: none;
  }
  /* While it shows, xterm's scrollbar does not: a flood's screens carry no history, and each one moved the
     slider (a style change and a repaint per screen, with a fade animation on top). */
  .xterm.flood-screen-active .xterm-scrollable-element > .scrollbar {
    display: none;
  }
  /* A renderer parsing a snapshot off screen: laid out (it measures its font) but unseen until swapped in. */
  .renderer.staged {
    position: absolute;
    top: 0;
    left: 0;
    visibility: hidden;
    pointer-events: none;
  }
  .search {
    display: flex;
    gap: 6px;
    align-items: center;
    margin: 0 8px 6px;
  }
  .search input {
    font: inherit;
    color: inherit;
    background: var(--st-bg);
    border: 1px solid var(--st-border);
    border-radius: 6px;
    padding: 3px 8px;
    min-width: 0;
    flex: 0 1 240px;
  }
  .search input:focus-visible {
    outline: 2px solid var(--st-focus);
    outline-offset: 1px;
  }
  .search .search-count {
    color: var(--st-muted);
    min-width: 6em;
  }
  .search button {
    padding: 1px 8px;
  }
  .context-menu {
    position: fixed;
    z-index: 20;
    display: flex;
    flex-direction: column;
    min-width: 140px;
    padding: 4px;
    background: var(--st-panel-bg);
    border: 1px solid var(--st-border);
    border-radius: 6px;
    box-shadow: 0 6px 18px rgba(0, 0, 0, 0.18);
  }
  .context-menu [role='menuitem'] {
    border: none;
    text-align: left;
    border-radius: 4px;
  }
  .placeholder {
    padding: 12px;
    color: var(--st-muted);
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
