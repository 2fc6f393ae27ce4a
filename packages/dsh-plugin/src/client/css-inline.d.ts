// The element imports xterm's stylesheet as text (`*.css?inline`); tsup.config.ts bundles it that way.
declare module '*.css?inline' {
  const css: string;
  export default css;
}
