// The agent list page: start an agent's terminal, then open its page.
const form = document.getElementById('create-agent');
const error = document.getElementById('create-error');
form?.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.textContent = '';
  const id = new FormData(form).get('id')?.toString().trim();
  const response = await fetch('/api/agents', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(id ? { id } : {}),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    error.textContent = body?.error?.message ?? `The agent could not be started (HTTP ${response.status}).`;
    return;
  }
  location.assign(`/agents/${encodeURIComponent(body.id)}`);
});
