import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { expect, userEvent, waitFor } from 'storybook/test';
import { PROMPT, SCREENS, part, renderScenario, serverOf, statusText, terminalIn, type Scenario } from './scenario.ts';
import { CloseCode } from '@shared-terminal/server/protocol';

type Story = StoryObj<Scenario>;

const meta: Meta<Scenario> = {
  title: 'Shared terminal/<shared-terminal>',
  component: 'shared-terminal',
  render: (args) => renderScenario(args),
  // Controls for what a host sets; each change renders the story again on a fresh scripted server.
  argTypes: {
    theme: {
      control: 'inline-radio',
      options: ['light', 'dark', 'auto'],
      description: '`theme`: light, dark, or auto (follows the system)',
    },
    fontSize: {
      control: { type: 'range', min: 8, max: 32, step: 1 },
      description: '`font-size` in CSS px (never changes rows and columns)',
    },
    readonly: { control: 'boolean', description: '`readonly`: ask for a read-only view' },
    lang: { control: 'inline-radio', options: ['en', 'zh-CN'], description: '`lang`: English or Simplified Chinese' },
    collapsed: { control: 'boolean' },
    touch: { control: 'boolean', description: 'Pretend to be a touch device (read only)' },
    server: { control: false, description: 'The scripted server behind the story' },
    script: { control: false },
  },
  args: { server: { mode: 'shell', rows: 12, cols: 100, prompt: PROMPT, screen: SCREENS.idle } },
};
export default meta;

const modelBusy = {
  mode: 'shell',
  rows: 12,
  cols: 100,
  prompt: PROMPT,
  screen: SCREENS.python,
  status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '12', inputWait: { command: 'python3', secret: false } },
} satisfies Scenario['server'];

// ------------------------------------------------------------------------------------------ states

export const Collapsed: Story = {
  args: { collapsed: true },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await expect(part(el, '.toggle').getAttribute('aria-expanded')).toBe('false');
    await expect(serverOf(el).connectorCalls.length).toBe(0);
  },
};

export const Connecting: Story = {
  args: { server: { neverOpen: true } },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('connecting'));
  },
};

export const IdleController: Story = {
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toMatch(/^Controller \| connected \| ready \| input free \| 0 queued/));
  },
};

export const ModelBusyTakeoverAvailable: Story = {
  args: { server: modelBusy },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('python3 is waiting for input'));
    await expect(statusText(el)).toContain('model holds input');
    await expect((part(el, '.takeover') as HTMLButtonElement).disabled).toBe(false);
  },
};

export const TakingOver: Story = {
  args: { server: { ...modelBusy, mode: 'manual' } },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect((part(el, '.takeover') as HTMLButtonElement).disabled).toBe(false));
    part(el, '.takeover').click();
    await waitFor(() => expect(statusText(el)).toContain('asking for input'));
    await expect(serverOf(el).framesOfType('takeover')[0]?.takeoverId).toBe('12');
  },
};

export const Granted: Story = {
  args: {
    server: { ...modelBusy, status: { ...modelBusy.status, pendingCount: 1, pendingKinds: ['model-send'] } },
    script: async (_server, el) => {
      await el.updateComplete; // the button is enabled once the status frame rendered
      el.shadowRoot?.querySelector<HTMLElement>('.takeover')?.click();
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('you hold input'));
    await expect(statusText(el)).toContain('model operation waiting');
    await expect((part(el, '.interrupt') as HTMLButtonElement).disabled).toBe(false);
  },
};

export const ReadOnlyAnotherViewControls: Story = {
  args: { server: { role: 'readonly', roleReason: 'controller-busy', rows: 12, cols: 100, screen: SCREENS.idle } },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toMatch(/^Read only \(another view controls this terminal\)/));
    await expect((part(el, '.takeover') as HTMLButtonElement).disabled).toBe(true);
    await expect((part(el, '.reset') as HTMLButtonElement).disabled).toBe(true);
  },
};

export const ReadOnlyTouchDevice: Story = {
  args: { touch: true },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toMatch(/^Read only \(touch devices view read only\)/));
    await expect(serverOf(el).connectorCalls).toEqual([{ readonly: true }]);
    await expect(el.renderer?.options.disableStdin).toBe(true);
  },
};

export const InvalidResume: Story = {
  args: { server: { role: 'readonly', roleReason: 'invalid-resume', rows: 12, cols: 100, screen: SCREENS.idle } },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('control could not be resumed; press Reconnect'));
  },
};

export const Exited: Story = {
  args: {
    server: {
      rows: 12,
      cols: 100,
      screen: SCREENS.exited,
      status: { process: { kind: 'exited', exitCode: 0, signal: null }, queueStatus: 'exited' },
    },
    script: (server) => server.notice('exited', 'The shell has exited.'),
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(part(el, '[data-code="exited"]').textContent).toContain('Reset Terminal'));
    await expect(statusText(el)).toContain('exited');
  },
};

export const Blocked: Story = {
  args: {
    server: { rows: 12, cols: 100, screen: SCREENS.blocked, status: { queueStatus: 'blocked', holder: null } },
    script: (server) => server.notice('blocked', 'queue is blocked until reset'),
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(part(el, '[data-code="blocked"]').textContent).toContain('blocked until it is reset'));
    await expect(statusText(el)).toContain('blocked');
  },
};

export const Reconnecting: Story = {
  args: {
    script: (server) => {
      server.options.neverOpen = true; // the network is gone: new sockets never open
      server.socket?.serverClose(1006); // abnormal closure: no close frame (the network, not the server)
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('reconnecting'));
    await expect(part(el, '[data-code="reconnecting"]').textContent).toContain('will not be repeated');
  },
};

export const Refused: Story = {
  args: { server: { neverOpen: true } },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    // What the standalone server does for a page of an origin it was not told to allow.
    await waitFor(() => expect(serverOf(el).socket).toBeTruthy());
    serverOf(el).socket!.serverClose(
      CloseCode.refused,
      'origin http://localhost:5174 is not allowed: start the server with --allow-origin http://localhost:5174',
    );
    await waitFor(() => expect(part(el, '[data-code="refused"]').textContent).toContain('The server refused this page.'));
    await expect(statusText(el)).toBe('disconnected');
  },
};

export const ScrollbackSearch: Story = {
  args: {
    script: (server) => {
      server.output(
        [
          'make',
          ...Array.from({ length: 30 }, (_, i) => `building step ${i}`),
          'warning: unused variable',
          'done',
          'warning: deprecated call',
          '',
        ].join('\r\n'),
      );
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(el.renderer?.buffer.active.length).toBeGreaterThan(30));
    el.focusTerminal();
    await userEvent.keyboard('{Control>}{Shift>}F{/Shift}{/Control}');
    await waitFor(() => expect(part(el, '[part="search"]')).toBeTruthy());
    await userEvent.type(part(el, '.search input'), 'warning');
    await waitFor(() => expect(part(el, '.search-count').textContent).toBe('1 of 2'));
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(part(el, '.search-count').textContent).toBe('2 of 2'));
  },
};

export const InputLimit: Story = {
  args: {
    server: { mode: 'shell', rows: 12, cols: 100, prompt: PROMPT, screen: SCREENS.idle, maxInputBytes: 8 },
    script: (_server, el) => {
      el.renderer?.input('cat > notes.txt', true); // 15 bytes: the first key asks, the rest is over 8
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(part(el, '[data-code="input-limit"]').textContent).toContain('Input limit reached'));
  },
};

export const ResetConfirmation: Story = {
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('connected'));
    part(el, '.settings').click();
    await el.updateComplete;
    part(el, '.reset').click();
    await waitFor(() => expect(part(el, '[role="alertdialog"]').textContent).toContain('Reset Terminal?'));
    await expect(serverOf(el).framesOfType('reset').length).toBe(0);
  },
};

export const DarkTheme: Story = {
  args: { theme: 'dark' },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(el.renderer?.options.theme?.background).toBe('#0d1117'));
  },
};

export const Chinese: Story = {
  args: { lang: 'zh-CN', server: modelBusy },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toMatch(/^Controller \| 已连接/));
    await expect(part(el, '.takeover').textContent?.trim()).toBe('接手输入');
    await expect(part(el, '.interrupt').textContent?.trim()).toBe('中断输入');
  },
};

export const WideTerminal: Story = {
  args: {
    server: {
      mode: 'shell',
      rows: 12,
      cols: 240,
      prompt: PROMPT,
      screen: `${PROMPT}printf '%.0s-' {1..230}; echo\r\n${'-'.repeat(230)}\r\n${PROMPT}`,
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(el.renderer?.cols).toBe(240));
    const viewport = part(el, '.viewport');
    await expect(viewport.scrollWidth).toBeGreaterThan(viewport.clientWidth);
  },
};

/** Screen `n` of a flood of coloured digits, as the server's catch-up sends it (the screen alone). */
function floodScreen(n: number, rows: number): string {
  let screen = '\x1b[H\x1b[2J';
  for (let row = 0; row < rows - 1; row++) {
    const words = Array.from(
      { length: 9 },
      (_, i) => `\x1b[38;5;${((n * 7 + row * 11 + i * 29) % 216) + 16}m${String((n + row) * 7919 * (i + 1)).padStart(9, '0')}`,
    );
    screen += `${words.join(' ')}\x1b[0m\r\n`;
  }
  return screen;
}

/** A flood the page cannot keep up with: the server sends whole screens (catch-ups, up to ten a second),
 *  and the element draws them on its flood canvas instead of xterm.js's rows (the last one stays until
 *  output streams). */
export const FloodCatchUps: Story = {
  args: {
    script: async (server, el) => {
      for (let n = 1; n <= 30 && el.isConnected; n++) {
        server.sequence += 100;
        server.screen = floodScreen(n, server.rows);
        server.send(server.snapshotFrame());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  },
  play: async ({ canvasElement }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(part(el, '.flood-screen').hidden).toBe(false), { timeout: 5000 });
    await expect(el.renderer?.buffer.active.getLine(0)?.translateToString(true)).toMatch(/^\d{9} /);
  },
};

// ------------------------------------------------------------------------------------------ flows

/** The settings menu from the keyboard: open, move, change the font, close; Reset asks first. */
export const SettingsMenuFlow: Story = {
  play: async ({ canvasElement, step }) => {
    const el = terminalIn(canvasElement);
    await waitFor(() => expect(statusText(el)).toContain('connected'));
    const settings = part(el, '.settings');
    const focused = (): Element | null => el.shadowRoot!.activeElement;
    const key = (target: Element | null, k: string): void => {
      target?.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true }));
    };
    await step('open with ArrowDown: the first item has the focus', async () => {
      settings.focus();
      key(settings, 'ArrowDown');
      await waitFor(() => expect(focused()?.textContent?.trim()).toBe('Reconnect'));
      await expect(settings.getAttribute('aria-expanded')).toBe('true');
    });
    await step('arrow keys move through Reconnect, Clear view, A−, A+', async () => {
      key(focused(), 'ArrowDown');
      await expect(focused()?.textContent?.trim()).toBe('Clear view');
      key(focused(), 'ArrowDown');
      await expect(focused()?.getAttribute('aria-label')).toBe('Smaller font');
      key(focused(), 'ArrowDown');
      await expect(focused()?.getAttribute('aria-label')).toBe('Larger font');
    });
    await step('A+ grows the font and keeps the rows and columns', async () => {
      (focused() as HTMLElement).click();
      await el.updateComplete;
      await expect(el.getAttribute('font-size')).toBe('14');
      await expect([el.renderer?.rows, el.renderer?.cols]).toEqual([12, 100]);
    });
    await step('Escape closes the menu and returns the focus', async () => {
      key(focused(), 'Escape');
      await el.updateComplete;
      await expect(part(el, '.menu').hidden).toBe(true);
      await expect(focused()).toBe(settings);
    });
    await step('Reset Terminal asks first; confirming shows the next generation', async () => {
      settings.click();
      await el.updateComplete;
      part(el, '.reset').click();
      await el.updateComplete;
      await expect(serverOf(el).framesOfType('reset').length).toBe(0);
      part(el, '.confirm-reset').click();
      await waitFor(() => expect(el.generation).toBe(2));
    });
  },
};

/** An idle prompt: the first key asks for input, keys wait for the grant, the lease ends at the prompt. */
export const LeaseFlow: Story = {
  play: async ({ canvasElement, step }) => {
    const el = terminalIn(canvasElement);
    const server = serverOf(el);
    await waitFor(() => expect(statusText(el)).toContain('input free'));
    await step('typing at the idle prompt: begin carries the first key, the rest follows the grant', async () => {
      el.focusTerminal();
      for (const key of 'echo hi') el.renderer!.input(key, true);
      await waitFor(() => expect(server.framesOfType('input').map((f) => f.input)).toEqual(['cho hi']));
      await expect(server.framesOfType('begin').map((f) => f.input)).toEqual(['e']);
      await waitFor(() => expect(statusText(el)).toContain('you hold input'));
    });
    await step('Enter runs the line; the lease ends at the next prompt', async () => {
      el.renderer!.input('\r', true);
      await waitFor(() => expect(el.lease.state).toBe('none'));
      await waitFor(() => expect(statusText(el)).toContain('input free'));
      const text = [...Array(el.renderer!.buffer.active.length).keys()]
        .map((i) => el.renderer!.buffer.active.getLine(i)?.translateToString(true))
        .join('\n');
      await expect(text).toContain('\nhi');
    });
    await step('the model takes the terminal: typing is refused with a notice', async () => {
      server.setStatus({ queueStatus: 'busy', holder: 'model-send', takeoverId: '5' });
      el.renderer!.input('x', true);
      await waitFor(() => expect(part(el, '[data-code="busy"]').textContent).toContain('Take over input'));
      await expect(server.framesOfType('begin').length).toBe(1);
    });
  },
};
