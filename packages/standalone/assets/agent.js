// The agent page: load the <shared-terminal> bundle and plug in this server's token route. Touch devices
// (a coarse pointer) get a read-only view.
const main = document.querySelector('main.agent');
const agent = main.dataset.agent;
const elementScript = main.dataset.element;
const terminal = document.getElementById('terminal');
const touch = matchMedia('(pointer: coarse)').matches;

if (touch) terminal.setAttribute('readonly', '');
document.getElementById('view-mode').textContent = touch ? 'read-only view (touch device)' : '';

terminal.connector = async ({ readonly }) => {
  const response = await fetch(`/api/agents/${encodeURIComponent(agent)}/terminal-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ readonly: Boolean(readonly) || touch }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body?.error?.message ?? `token request failed (HTTP ${response.status})`);
  return { url: body.url, token: body.token };
};

if (elementScript) await import(`/assets/element/${elementScript}`);
