// `npm start`: the standalone shared terminal on its embedded defaults (arguments pass through).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
const cli = new URL('../packages/standalone/dist/cli.js', import.meta.url).pathname;
if (!existsSync(cli)) {
  console.error('shared-terminal: the standalone CLI is not built yet (packages/standalone/dist/cli.js is missing).');
  process.exit(1);
}
// `npm start -- --port 0` means `serve --port 0`; a command of its own (`mcp`, `--help`) passes through.
const args = process.argv.slice(2);
const commands = new Set(['serve', 'mcp', 'help', '--help', '-h', '--version', '-v']);
const argv = args.length > 0 && commands.has(args[0]) ? args : ['serve', ...args];
const child = spawn(process.execPath, [cli, ...argv], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
