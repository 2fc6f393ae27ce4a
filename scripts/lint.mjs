// Lint and format: ESLint (recommended rules plus ARCHITECTURE.md's layers, see eslint.config.js) and
// Prettier, the one formatter. `--fix` rewrites what both can fix; without it, anything found fails.
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const fix = process.argv.includes('--fix');
const run = (args) => spawnSync('pnpm', ['exec', ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;

const format = run(fix ? ['prettier', '--write', '--log-level=warn', '.'] : ['prettier', '--check', '--log-level=warn', '.']);
const lint = run(['eslint', '--max-warnings=0', ...(fix ? ['--fix'] : []), '.']);
if (format !== 0 && !fix) console.error('Formatting differs: run `npm run format`, then review and commit the changes.');
process.exit(format === 0 && lint === 0 ? 0 : 1);
