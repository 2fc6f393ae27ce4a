/**
 * The slice of DSH 0.1.0-rc.8's browser client API that the client half uses, as structural types (the
 * real ones live in DSH's client packages, which are not importable from a plugin bundle). Names follow
 * `dsh-client-runtime`, `dsh-client-connection`, `dsh-client-locale` and `dsh-client-ui-theme`.
 */
import type { ComponentType } from 'react';

export type ClientRpcResult = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

export interface ClientConnection {
  readonly rpc: { call(channel: string, endpoint: string, payload: unknown, signal?: AbortSignal): Promise<ClientRpcResult> };
}

export type LocaleId = 'zh' | 'en';

export interface LocaleRuntime {
  getLocale(): { active: LocaleId };
  register(ns: string, dicts: Record<LocaleId, Record<string, string>>): () => void;
}

export interface ThemeRuntime {
  getTheme(): { active: { colorScheme: 'light' | 'dark' } };
}

/** Props DSH gives a component in a session-scoped slot, plus what our `inject` returns. */
export interface SessionSlotProps {
  sessionId: string;
}

export interface SlotRegistration<P> {
  name: string;
  id: string;
  order?: number;
  inject?: (sessionId: string) => P;
}

export interface ClientContext {
  readonly slots: {
    register<P>(options: SlotRegistration<P>, component: ComponentType<P & SessionSlotProps>): () => void;
    inject(name: string, install: () => (() => void) | void): () => void;
  };
  readonly connection: ClientConnection;
  get(name: 'locale'): LocaleRuntime | undefined;
  get(name: 'theme'): ThemeRuntime | undefined;
  get(name: string): unknown;
  on(name: 'locale/change' | 'theme/change', listener: () => void): () => void;
  effect(execute: () => (() => void) | void, label?: string): () => void;
}
