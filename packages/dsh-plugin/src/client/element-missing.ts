/**
 * Build-time stand-in for `@shared-terminal/element` while that package has no entry yet: a placeholder
 * `<shared-terminal>` that says so, so the bundle and DSH's boot stay healthy. tsup.config.ts uses it only
 * when `packages/terminal-element/src/index.ts` does not exist.
 */
if (typeof customElements !== 'undefined' && !customElements.get('shared-terminal')) {
  customElements.define(
    'shared-terminal',
    class extends HTMLElement {
      connectedCallback(): void {
        this.textContent = 'This build of dsh-interactive-terminal has no terminal element yet.';
      }
    },
  );
}
export {};
