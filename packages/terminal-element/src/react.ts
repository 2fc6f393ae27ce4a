/**
 * `@shared-terminal/element/react`: defines `<shared-terminal>` (as the main entry does) and types it in
 * React 19's JSX: its properties, its attributes and an `on<event>` prop for each of its events (React 19
 * sets properties on custom elements and listens to the events those props name).
 *
 *   import '@shared-terminal/element/react';
 *   <shared-terminal connector={connector} theme="auto" onshared-terminal-lease={(e) => e.detail.state} />
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { SharedTerminalElement } from './shared-terminal.ts';
import type { SharedTerminalEventDetails } from './events.ts';
export * from './index.ts';

type EventProps = {
  [K in keyof SharedTerminalEventDetails as `on${K}`]?: (event: CustomEvent<SharedTerminalEventDetails[K]>) => void;
};

/** What JSX accepts on `<shared-terminal>`. */
export type SharedTerminalJsxProps = DetailedHTMLProps<HTMLAttributes<SharedTerminalElement>, SharedTerminalElement> &
  Partial<
    Pick<SharedTerminalElement, 'connector' | 'socketFactory' | 'touchDevice' | 'readonly' | 'collapsed' | 'fontSize' | 'screenReader'>
  > & {
    theme?: SharedTerminalElement['theme'];
    'font-size'?: number | string;
    'screen-reader'?: boolean;
  } & EventProps;

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'shared-terminal': SharedTerminalJsxProps;
    }
  }
}
