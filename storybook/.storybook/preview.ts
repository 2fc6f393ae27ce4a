import type { Preview } from '@storybook/web-components-vite';
import { setCustomElementsManifest } from '@storybook/web-components';
import { withActions } from 'storybook/actions/decorator';
// Made by the element's build (the CEM analyzer reads the element's doc header): autodocs and controls.
import manifest from '@shared-terminal/element/custom-elements.json' with { type: 'json' };

setCustomElementsManifest(manifest);

/** Every event the element fires, shown in the Actions panel (they bubble out of the shadow root). */
const EVENTS = ['connection', 'role', 'status', 'lease', 'notice', 'generation', 'screen', 'toggle', 'font-size'].map(
  (name) => `shared-terminal-${name}`,
);

const preview: Preview = {
  parameters: {
    layout: 'padded',
    controls: { expanded: true },
    actions: { handles: EVENTS },
    // axe runs on every story in the story tests; a violation fails the test.
    a11y: { test: 'error' },
  },
  decorators: [withActions],
  tags: ['autodocs'],
};
export default preview;
