/**
 * The events `<shared-terminal>` fires (all bubble and cross the shadow boundary), by name, with the type of
 * each one's `detail`. The global `HTMLElementEventMap` gets them too, so a host's
 * `el.addEventListener('shared-terminal-lease', (e) => e.detail.state)` is typed without a cast.
 */
import type { ConnectionEventMap, LeaseView } from './connection.ts';
import type { NoticeEventDetail, ScreenEventDetail, StatusEventDetail } from './shared-terminal.ts';

export type ConnectionEventDetail = ConnectionEventMap['state'];
export type RoleEventDetail = ConnectionEventMap['role'];
export type LeaseEventDetail = LeaseView;
export interface GenerationEventDetail {
  generation: number;
  previous: number | null;
  rows: number | null;
  cols: number | null;
}
export interface ToggleEventDetail {
  collapsed: boolean;
}
export interface FontSizeEventDetail {
  fontSize: number;
}

/** Each event's name and the type of its `detail`. */
export interface SharedTerminalEventDetails {
  'shared-terminal-connection': ConnectionEventDetail;
  'shared-terminal-role': RoleEventDetail;
  'shared-terminal-status': StatusEventDetail;
  'shared-terminal-lease': LeaseEventDetail;
  'shared-terminal-notice': NoticeEventDetail;
  'shared-terminal-generation': GenerationEventDetail;
  'shared-terminal-screen': ScreenEventDetail;
  'shared-terminal-toggle': ToggleEventDetail;
  'shared-terminal-font-size': FontSizeEventDetail;
}

export type SharedTerminalEventMap = { [K in keyof SharedTerminalEventDetails]: CustomEvent<SharedTerminalEventDetails[K]> };

declare global {
  // An interface merges with the DOM's own map: listeners on any element (and React 19's `on…` props) see the detail types.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HTMLElementEventMap extends SharedTerminalEventMap {}
}
