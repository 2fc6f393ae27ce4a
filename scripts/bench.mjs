// `npm run bench`: after the bootstrap installed and built everything, run the bench harness (bench/src/main.ts,
// TypeScript run directly by Node 22 with the workspace's `source` condition). Extra arguments go to it,
// e.g. `npm run bench -- --runs 5 --only echo,throughput`. It writes bench/REPORT.md and bench/results.json.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const child = spawn(
  process.execPath,
  ['--conditions=source', '--no-warnings', join(root, 'bench', 'src', 'main.ts'), ...process.argv.slice(2)],
  {
    cwd: join(root, 'bench'),
    stdio: 'inherit',
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('close', (code) => process.exit(code ?? 1));
