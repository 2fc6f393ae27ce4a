/**
 * The two pages: `/` (live agents, and a form that starts one) and `/agents/{id}` (that agent's
 * `<shared-terminal>`). They are plain HTML; their scripts are static files under /assets, so the
 * Content-Security-Policy can forbid inline script.
 */
import type { AgentSummary } from './api.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // xterm.js and Lit set element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/page.css">
<script type="module" src="/assets/${script}"></script>
</head>
<body>
${body}
</body>
</html>
`;
}

function describeStatus(agent: AgentSummary): string {
  if (agent.status.kind === 'exited') return `exited${agent.status.exitCode === null ? '' : ` (${agent.status.exitCode})`}`;
  if (!agent.live) return 'not started';
  if (agent.holder === 'human') return 'human typing';
  if (agent.holder === 'model-send') return 'model running';
  if (agent.holder) return agent.holder;
  return agent.queueStatus === 'ready' ? 'idle' : agent.queueStatus;
}

export function homePage(agents: readonly AgentSummary[], maxSessions: number): string {
  const rows = agents.length
    ? agents
        .map(
          (agent) => `<tr>
  <td><a href="/agents/${escapeHtml(agent.id)}">${escapeHtml(agent.id)}</a></td>
  <td>${escapeHtml(describeStatus(agent))}</td>
  <td>${agent.generation}</td>
  <td>${agent.pendingCount}</td>
</tr>`,
        )
        .join('\n')
    : '<tr><td colspan="4" class="empty">No agent yet. Start one below, or call the HTTP API or MCP server.</td></tr>';
  return layout(
    'shared-terminal',
    `<header class="bar"><strong>shared-terminal</strong><span class="muted">${agents.length} of ${maxSessions} agents</span></header>
<main class="home">
<h1>Agents</h1>
<table id="agents">
<thead><tr><th>Agent</th><th>State</th><th>Generation</th><th>Queued</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<form id="create-agent" class="create">
<label for="agent-id">New agent</label>
<input id="agent-id" name="id" placeholder="e.g. build-bot (empty: a random id)" maxlength="64" autocomplete="off" aria-describedby="create-error">
<button type="submit">Open terminal</button>
<output id="create-error" role="alert"></output>
</form>
<p class="muted">An agent's terminal is created on first use. Models drive it with
<code>POST /api/agents/{id}/tools/{tool}</code> or the MCP server (<code>shared-terminal mcp</code>).</p>
</main>`,
    'home.js',
  );
}

export function agentPage(id: string, elementScript: string | undefined): string {
  const missing = elementScript
    ? ''
    : '<p class="notice" role="alert">The terminal element is not built (packages/terminal-element/dist is missing): run the build, then reload.</p>';
  return layout(
    `${id} · shared-terminal`,
    `<header class="bar"><a href="/">shared-terminal</a><span>/</span><strong id="agent-name">${escapeHtml(id)}</strong><span id="view-mode" class="muted"></span></header>
<main class="agent" data-agent="${escapeHtml(id)}" data-element="${escapeHtml(elementScript ?? '')}">
${missing}
<shared-terminal id="terminal" theme="auto"></shared-terminal>
</main>`,
    'agent.js',
  );
}

export function messagePage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/page.css"></head>
<body><main class="home"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>
`;
}
