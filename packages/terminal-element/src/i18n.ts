/**
 * The element's words, in English and Simplified Chinese. English is the fallback for any other `lang`.
 * The status line starts with the role word in every language, so a person (and a test) can find it.
 */
import type { ConnectionState, LeaseState, ViewNoticeCode } from './connection.ts';
import type { OperationKindFrame, QueueStatusFrame, RoleReason } from '@shared-terminal/server/protocol';

export type Locale = 'en' | 'zh-CN';

export interface Messages {
  terminal: string;
  controller: string;
  readOnly: string;
  connection: Record<ConnectionState, string>;
  queueStatus: Record<QueueStatusFrame, string>;
  holder: (kind: OperationKindFrame | null, mine: boolean) => string;
  queued: (count: number) => string;
  modelWaiting: string;
  /** `busy`: the program also kept computing in another thread (more output may come). */
  inputWait: (command: string | null, secret: boolean, busy?: boolean) => string;
  lease: Record<Exclude<LeaseState, 'none'>, string>;
  roleReason: Partial<Record<RoleReason | 'touch', string>>;
  retryIn: (seconds: number) => string;
  takeOver: string;
  interrupt: string;
  settings: string;
  reconnect: string;
  clearView: string;
  fontDown: string;
  fontDownLabel: string;
  fontUp: string;
  fontUpLabel: string;
  fontSize: (px: number) => string;
  fitWidth: string;
  screenReader: string;
  resetTerminal: string;
  confirmTitle: string;
  confirmBody: string;
  confirmReset: string;
  cancel: string;
  dismiss: string;
  expand: string;
  collapse: string;
  notice: Record<ViewNoticeCode, string>;
  copy: string;
  paste: string;
  contextMenu: string;
  search: string;
  searchPlaceholder: string;
  searchPrevious: string;
  searchNext: string;
  searchClose: string;
  /** "3 of 12"; `more`: the count stopped at the highlight limit ("3 of 1000+"). */
  searchCount: (index: number, count: number, more: boolean) => string;
  searchNone: string;
  /** The active match lies past the highlight limit: only that there are more than `count`. */
  searchMany: (count: number) => string;
}

// A variable, not a literal: a code named here before the protocol has it is no error. A code this list
// does not know at run time shows the server's own message.
const enNotices = {
  busy: 'Take over input before answering this operation.',
  'input-limit': 'Input limit reached for this interaction. Press Interrupt input to get the prompt back.',
  'line-too-long':
    'Nothing was sent: the program reads line by line, and the kernel keeps at most 4095 bytes of a line. Paste the text in shorter lines, or save it to a file first.',
  'lease-closed': 'The program already finished; that input was not sent.',
  'takeover-unavailable': 'Take over is no longer available: the operation already finished.',
  'stale-generation': 'The terminal was reset; that action was meant for the old shell.',
  'operation-failed': 'The operation failed. Check the status line before trying again.',
  blocked: 'The terminal is blocked until it is reset: open Settings and choose Reset Terminal.',
  exited: 'The shell has exited: open Settings and choose Reset Terminal to start a new one.',
  resynced: 'This view fell behind and was refreshed from the server.',
  'controller-available': 'No view controls this terminal now: press Reconnect to take control.',
  'discarded-input': 'Unsent input discarded.',
  reconnecting: 'Connection lost, reconnecting. Input already sent will not be repeated.',
  'protocol-error': 'The connection was closed after a protocol error. Press Reconnect to try again.',
  disposed: 'This terminal was closed by the server.',
  'connect-failed': 'Could not get a connection from the page.',
  'not-connected': 'Not connected: that key was not sent.',
  readonly: 'This view is read only.',
  refused: 'The server refused this page.',
  'clipboard-denied':
    'The browser did not let the page use the clipboard: copy with Ctrl+Shift+C and paste with Ctrl+Shift+V (⌘C and ⌘V on macOS).',
};

const en: Messages = {
  terminal: 'Terminal',
  controller: 'Controller',
  readOnly: 'Read only',
  connection: {
    idle: 'not connected',
    connecting: 'connecting',
    connected: 'connected',
    reconnecting: 'reconnecting',
    failed: 'disconnected',
    disposed: 'closed',
    stopped: 'stopped',
  },
  queueStatus: { ready: 'ready', busy: 'busy', blocked: 'blocked', exited: 'exited', disposed: 'closed' },
  holder: (kind, mine) =>
    kind === null
      ? 'input free'
      : kind === 'human'
        ? mine
          ? 'you hold input'
          : 'a person holds input'
        : kind === 'model-send'
          ? 'model holds input'
          : kind === 'signal'
            ? 'signal running'
            : 'reset running',
  queued: (count) => `${count} queued`,
  modelWaiting: 'model operation waiting',
  inputWait: (command, secret, busy) =>
    `${command ?? 'a program'} is waiting for ${secret ? 'a secret' : 'input'}${busy ? ' (still working)' : ''}`,
  lease: { requested: 'asking for input', queued: 'waiting for input', granted: 'you have input' },
  roleReason: {
    'controller-busy': 'another view controls this terminal',
    'readonly-requested': 'read-only view',
    'invalid-resume': 'control could not be resumed; press Reconnect',
    touch: 'touch devices view read only',
  },
  retryIn: (seconds) => `retry in ${seconds} s`,
  takeOver: 'Take over input',
  interrupt: 'Interrupt input',
  settings: 'Settings',
  reconnect: 'Reconnect',
  clearView: 'Clear view',
  fontDown: 'A−',
  fontDownLabel: 'Smaller font',
  fontUp: 'A+',
  fontUpLabel: 'Larger font',
  fontSize: (px) => `Font size ${px} px`,
  fitWidth: 'Fit width',
  screenReader: 'Screen reader mode',
  resetTerminal: 'Reset Terminal',
  confirmTitle: 'Reset Terminal?',
  confirmBody: 'This ends every program in this terminal and starts a new shell. Its screen and history are lost.',
  confirmReset: 'Reset',
  cancel: 'Cancel',
  dismiss: 'Dismiss',
  expand: 'Show terminal',
  collapse: 'Hide terminal',
  notice: enNotices,
  copy: 'Copy',
  paste: 'Paste',
  contextMenu: 'Terminal actions',
  search: 'Search the terminal',
  searchPlaceholder: 'Search',
  searchPrevious: 'Previous match',
  searchNext: 'Next match',
  searchClose: 'Close search',
  searchCount: (index, count, more) => `${index} of ${count}${more ? '+' : ''}`,
  searchNone: 'No results',
  searchMany: (count) => `${count}+ matches`,
};

// A variable, not a literal: a code named here before the protocol has it is no error. A code this list
// does not know at run time shows the server's own message.
const zhNotices = {
  busy: '请先点击接手输入，再回答此操作。',
  'input-limit': '本轮输入已达上限。请点击中断输入以恢复提示符。',
  'line-too-long': '未发送：前台程序按行读取，内核每行最多保留 4095 字节。请分成较短的行粘贴，或先保存到文件。',
  'lease-closed': '程序已经结束，该输入未发送。',
  'takeover-unavailable': '无法接手：该操作已经结束。',
  'stale-generation': '终端已重置，该操作针对的是旧 shell。',
  'operation-failed': '操作失败。请先查看状态栏再重试。',
  blocked: '终端已阻塞，需要重置：打开设置并选择重置终端。',
  exited: 'Shell 已退出：打开设置并选择重置终端以启动新的 shell。',
  resynced: '此视图落后过多，已从服务器刷新。',
  'controller-available': '当前没有视图控制此终端：点击重新连接即可获得控制权。',
  'discarded-input': '未发送的输入已丢弃。',
  reconnecting: '连接已断开，正在重连。已发送的输入不会重复发送。',
  'protocol-error': '连接因协议错误而关闭。请点击重新连接。',
  disposed: '此终端已被服务器关闭。',
  'connect-failed': '页面无法提供连接。',
  'not-connected': '未连接：该按键未发送。',
  readonly: '此视图为只读。',
  refused: '服务器拒绝了此页面。',
  'clipboard-denied': '浏览器不允许页面使用剪贴板：请用 Ctrl+Shift+C 复制、Ctrl+Shift+V 粘贴（macOS 上为 ⌘C 和 ⌘V）。',
};

const zhCN: Messages = {
  terminal: '终端',
  // The product description tells Chinese readers that the status line starts with "Controller".
  controller: 'Controller',
  readOnly: 'Read only',
  connection: {
    idle: '未连接',
    connecting: '正在连接',
    connected: '已连接',
    reconnecting: '正在重连',
    failed: '已断开',
    disposed: '已关闭',
    stopped: '已停止',
  },
  queueStatus: { ready: '就绪', busy: '忙碌', blocked: '已阻塞', exited: '已退出', disposed: '已关闭' },
  holder: (kind, mine) =>
    kind === null
      ? '输入空闲'
      : kind === 'human'
        ? mine
          ? '你持有输入权'
          : '用户持有输入权'
        : kind === 'model-send'
          ? '模型持有输入权'
          : kind === 'signal'
            ? '正在发送信号'
            : '正在重置',
  queued: (count) => `${count} 个排队`,
  modelWaiting: '模型操作在等待',
  inputWait: (command, secret, busy) => `${command ?? '程序'}正在等待${secret ? '密码' : '输入'}${busy ? '（仍在运行）' : ''}`,
  lease: { requested: '正在申请输入权', queued: '等待输入权', granted: '你持有输入权' },
  roleReason: {
    'controller-busy': '另一个视图正在控制此终端',
    'readonly-requested': '只读视图',
    'invalid-resume': '无法恢复控制权，请点击重新连接',
    touch: '触屏设备只读',
  },
  retryIn: (seconds) => `${seconds} 秒后重试`,
  takeOver: '接手输入',
  interrupt: '中断输入',
  settings: '设置',
  reconnect: '重新连接',
  clearView: '清除显示',
  fontDown: 'A−',
  fontDownLabel: '减小字号',
  fontUp: 'A+',
  fontUpLabel: '增大字号',
  fontSize: (px) => `字号 ${px} px`,
  fitWidth: '适应宽度',
  screenReader: '屏幕阅读器模式',
  resetTerminal: '重置终端',
  confirmTitle: '重置终端？',
  confirmBody: '这会结束此终端中的所有程序并启动新的 shell，屏幕和历史将丢失。',
  confirmReset: '重置',
  cancel: '取消',
  dismiss: '关闭',
  expand: '显示终端',
  collapse: '隐藏终端',
  notice: zhNotices,
  copy: '复制',
  paste: '粘贴',
  contextMenu: '终端操作',
  search: '搜索终端',
  searchPlaceholder: '搜索',
  searchPrevious: '上一个匹配',
  searchNext: '下一个匹配',
  searchClose: '关闭搜索',
  searchCount: (index, count, more) => `第 ${index} 个，共 ${count}${more ? '+' : ''} 个`,
  searchNone: '无结果',
  searchMany: (count) => `超过 ${count} 个`,
};

/** `zh`, `zh-CN`, `zh-Hans`... get Chinese; everything else English. */
export function resolveLocale(lang: string | null | undefined): Locale {
  return lang && /^zh(?:-(?:cn|hans|sg))?$/i.test(lang.trim()) ? 'zh-CN' : 'en';
}

export function messagesFor(locale: Locale): Messages {
  return locale === 'zh-CN' ? zhCN : en;
}
