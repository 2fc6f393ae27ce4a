// `npm run storybook`: serve the component review of <shared-terminal> on 127.0.0.1 (after the bootstrap
// installed and built everything). Extra arguments go to `storybook dev` (e.g. --port 7007).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const port = args.includes('--port') ? [] : ['--port', process.env.STORYBOOK_PORT || '6006'];
const child = spawn('pnpm', ['exec', 'storybook', 'dev', '--ci', '--no-open', '--host', '127.0.0.1', ...port, ...args], {
  cwd: join(root, 'storybook'),
  stdio: 'inherit',
  env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('close', (code) => process.exit(code ?? 1));
