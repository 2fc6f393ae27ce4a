import { spawnSync } from 'node:child_process';
const r = spawnSync('pnpm', ['-r', '--if-present', 'run', 'typecheck'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
