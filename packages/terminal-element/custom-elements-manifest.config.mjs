// The Custom Elements Manifest (custom-elements.json, named by package.json's `customElements`), made by
// the analyzer from the element's doc header. It lists what the header documents, at the module a
// consumer imports (dist/index.js): the attributes, events and parts there, and no internal state.
/** Lit reactive state the element keeps for its own rendering (the documented read-outs stay). */
const INTERNAL_STATE = new Set(['notices', 'menuOpen', 'confirmOpen', 'hasRenderer', 'searchOpen', 'searchResult', 'contextMenuAt']);

export default {
  globs: ['src/shared-terminal.ts'],
  litelement: true,
  outdir: '.',
  plugins: [
    {
      name: 'documented-api-at-the-bundle',
      packageLinkPhase({ customElementsManifest }) {
        for (const module of customElementsManifest.modules) {
          module.path = 'dist/index.js';
          for (const declaration of module.declarations ?? []) {
            if (!declaration.customElement) continue;
            // Only what the header documents: Lit's reactive state is no attribute, and `fire(type)` no event.
            declaration.attributes = (declaration.attributes ?? []).filter((a) => a.description);
            declaration.events = (declaration.events ?? []).filter((e) => e.description);
            const attributes = new Set(declaration.attributes.map((a) => a.name));
            for (const member of declaration.members ?? [])
              if (member.attribute && !attributes.has(member.attribute)) delete member.attribute;
            declaration.members = (declaration.members ?? []).filter(
              (m) => m.privacy !== 'private' && m.privacy !== 'protected' && !INTERNAL_STATE.has(m.name),
            );
            // index.ts defines it (the analyzer reads only this file).
            module.exports = [
              ...(module.exports ?? []),
              {
                kind: 'custom-element-definition',
                name: declaration.tagName,
                declaration: { name: declaration.name, module: 'dist/index.js' },
              },
            ];
          }
          for (const entry of module.exports ?? []) if (entry.declaration?.module) entry.declaration.module = 'dist/index.js';
        }
      },
    },
  ],
};
