/**
 * @shared-terminal/element: the `<shared-terminal>` custom element and its DOM-free connection controller.
 * Importing this module defines the element (once) under the tag `shared-terminal`.
 */
import { SharedTerminalElement } from './shared-terminal.ts';

export { SharedTerminalElement, modelWaiting, MIN_FONT_SIZE, MAX_FONT_SIZE, DEFAULT_FONT_SIZE } from './shared-terminal.ts';
export type { StatusEventDetail, NoticeEventDetail, ScreenEventDetail } from './shared-terminal.ts';
export type {
  SharedTerminalEventDetails,
  SharedTerminalEventMap,
  ConnectionEventDetail,
  RoleEventDetail,
  LeaseEventDetail,
  GenerationEventDetail,
  ToggleEventDetail,
  FontSizeEventDetail,
} from './events.ts';
export {
  TerminalConnection,
  type ConnectionState,
  type ConnectionOptions,
  type ConnectionEventMap,
  type LeaseState,
  type LeaseView,
  type LocalNoticeCode,
  type ViewNotice,
  type ViewNoticeCode,
  type SocketFactory,
  type SocketLike,
  type TimerHost,
  type RetryPolicy,
} from './connection.ts';
export { messagesFor, resolveLocale, type Locale, type Messages } from './i18n.ts';
export type { Connector, ConnectTicket } from '@shared-terminal/server/protocol';

export const TAG_NAME = 'shared-terminal';
if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) customElements.define(TAG_NAME, SharedTerminalElement);
