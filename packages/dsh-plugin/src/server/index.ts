/**
 * dsh-interactive-terminal, server half: a cordis plugin for DeepSeek Harness 0.1.0-rc.8.
 *
 * Named exports only (`name`, `inject`, `Config`, `apply`): a default export would collapse `inject` in
 * DSH's Loader. Every registration goes through `ctx`, so unloading the plugin (HMR, a config edit, a
 * `disabled: true` patch) removes the tools, the RPC channel and the socket route, closes the sockets,
 * and ends every terminal's process tree.
 *
 * Services: `tools`, `agents`, `subprocess` and `sandboxPolicy` are required; `sandbox` is read when a
 * confined mode needs it; `webServer` and `connection` (the browser half) attach when present, so the
 * tools also work in a profile without a web server.
 */
import { Config, toNoticeConfig, toTerminalConfig, type PluginConfig } from './config.ts';
import type { DshContext } from './dsh-api.ts';
import { mountBrowserAccess } from './browser.ts';
import { PLUGIN_NAME } from './notice.ts';
import { dshInlineLimit } from './inline-limit.ts';
import { AgentTerminals } from './terminals.ts';
import { createToolDefinitions } from './tools.ts';

export const name = PLUGIN_NAME;
export const inject = ['tools', 'agents', 'subprocess', 'sandboxPolicy'];
export { Config };
export type { PluginConfig };

export function apply(ctx: DshContext, config: PluginConfig): void {
  const terminals = new AgentTerminals(ctx, toTerminalConfig(config), toNoticeConfig(config));
  ctx.effect(() => () => terminals.close(), 'dsh-interactive-terminal: terminals');

  for (const definition of createToolDefinitions(terminals, () => dshInlineLimit(ctx))) ctx.tools.register(definition);

  ctx.on('agent/disposed', ({ agent }) => {
    terminals.release(agent).catch((error: unknown) => {
      ctx.logger.warn(
        `dsh-interactive-terminal: ending the terminal of agent ${agent.id} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  });
  ctx.on('internal/dispatch', (_mode, eventName, args) => terminals.checkSandboxModeChange(eventName, args), { global: true });

  ctx.inject(['webServer', 'connection'], (web) => mountBrowserAccess(web, terminals));
}
