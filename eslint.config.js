// The lint run by `npm test`. Besides the recommended rules, it encodes ARCHITECTURE.md's layers, so a
// change that makes a dependency point the wrong way fails with a message that says where it belongs.
import js from '@eslint/js';
import lit from 'eslint-plugin-lit';
import tseslint from 'typescript-eslint';

const SERVER = 'packages/terminal-server/src';

/**
 * The server's layers, bottom up (ARCHITECTURE.md): a file may import its own layer and those below it.
 * Entries are folders under src, or single files at its top.
 */
const SERVER_LAYERS = [
  { name: 'primitives', rooms: ['config.ts', 'errors.ts', 'time.ts', 'utf8.ts', 'protocol', 'shell'] },
  { name: 'platform', rooms: ['pty'] },
  { name: 'state machines', rooms: ['queue', 'screen'] },
  { name: 'runtime', rooms: ['terminal', 'hub'] },
  { name: 'surfaces', rooms: ['operations', 'transport'] },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regex for relative specifiers that reach `room`, written from a file at `depth` folders under src. */
function reaches(room, depth) {
  const up = depth === 0 ? '\\./' : `(?:\\.\\./){${depth}}`;
  return room.endsWith('.ts') ? `^${up}${escape(room)}$` : `^${up}${escape(room)}/`;
}

const NO_DSH = { group: ['@deepseek-ai/*'], message: 'Only packages/dsh-plugin may import DSH; the libraries and the CLI stay host-free.' };
const NODE_ONLY = {
  group: ['@shared-terminal/element', 'lit', 'lit/*', '@xterm/xterm'],
  message: 'The server runs in Node: browser code lives in packages/terminal-element.',
};

/** One config block per room: the rooms of every higher layer are forbidden to it. */
function serverLayerRules() {
  return SERVER_LAYERS.flatMap((layer, index) =>
    layer.rooms.map((room) => {
      const isFile = room.endsWith('.ts');
      const patterns = SERVER_LAYERS.slice(index + 1).flatMap((above) =>
        above.rooms.map((target) => ({
          regex: reaches(target, isFile ? 0 : 1),
          message: `${room} is in the ${layer.name} layer and may not import ${target} (${above.name}); see ARCHITECTURE.md. Move the shared part down a layer, or pass it in from above.`,
        })),
      );
      return {
        files: isFile ? [`${SERVER}/${room}`] : [`${SERVER}/${room}/**/*.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns: [NO_DSH, NODE_ONLY, ...patterns] }] },
      };
    }),
  );
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/lib/**',
      '.tools/**',
      '**/storybook-static/**',
      '**/test-results/**',
      '**/.artifacts/**',
      'packages/consumer-test/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
    rules: {
      // TypeScript checks these with the types; ESLint's copies only see names.
      'no-undef': 'off',
      // A terminal's own bytes (ESC, BEL, ^C) are what many of our patterns look for.
      'no-control-regex': 'off',
      'no-redeclare': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: [`${SERVER}/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_DSH, NODE_ONLY] }] },
  },
  ...serverLayerRules(),
  {
    files: [`${SERVER}/protocol/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|\\.\\./utf8\\.ts$)',
              message:
                'protocol is runtime-free: browsers import it, so it imports nothing but the runtime-free utf8 room (ARCHITECTURE.md).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/terminal-element/src/**/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    files: ['packages/terminal-element/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_DSH,
            {
              regex: '^@shared-terminal/server(?!/protocol$)',
              message: 'The element imports only @shared-terminal/server/protocol (runtime-free); everything else is Node.',
            },
            { group: ['node:*'], message: 'The element runs in browsers: no Node built-ins.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/standalone/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_DSH] }] },
  },
);
