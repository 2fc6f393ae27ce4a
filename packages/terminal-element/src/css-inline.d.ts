// Vite (and our test server plugin) turn `*.css?inline` imports into the stylesheet's text.
declare module '*.css?inline' {
  const css: string;
  export default css;
}
