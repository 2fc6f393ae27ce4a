/** The notices a view shows: the server's codes and the ones the view raises itself. */
import type { NoticeCode } from '@shared-terminal/server/protocol';

/** Notices raised by this view on top of the server's notice codes. */
export type LocalNoticeCode =
  | 'discarded-input' // keys typed before a grant were dropped (the lease ended or did not survive a reconnect)
  | 'reconnecting' // the connection was lost; sent input will not be repeated
  | 'protocol-error' // a bad frame or 1008/1009: no automatic retry
  | 'disposed' // the terminal is gone for good
  | 'connect-failed' // the host's connector failed
  | 'not-connected' // typing while there is no connection
  | 'readonly' // typing or acting in a read-only view
  | 'clipboard-denied' // the browser refused the clipboard to the context menu's Copy or Paste
  | 'refused'; // the host refused this page (close 4005; the detail is the server's reason): no automatic retry
export type ViewNoticeCode = NoticeCode | LocalNoticeCode;

export interface ViewNotice {
  code: ViewNoticeCode;
  /** The server's text for server notices, or a detail (e.g. the connector's error). */
  detail: string | null;
}
