// A host page's inherited text styles stop at the element: a page that sets every one of them on an
// ancestor (as the Vite React template's `#root { text-align: center }` does one) lays out the terminal
// exactly as a plain page does.
import { equal, ok } from '../helpers/assert.ts';
import { mount, parsedAll, shadow, type Mounted } from '../helpers/mount.ts';

const HOST_STYLES: Record<string, string> = {
  'text-align': 'center',
  'letter-spacing': '6px',
  'line-height': '3',
  'word-spacing': '24px',
  'white-space': 'pre-wrap',
  direction: 'rtl',
  'text-indent': '40px',
  'text-transform': 'uppercase',
};

/** The computed values of the host styles (and where the first row's text starts) in a mounted element. */
async function layout(m: Mounted): Promise<{ styles: Record<string, string>; textOffset: number }> {
  m.server.output('\x1b[2J\x1b[Hhi there');
  await parsedAll(m);
  const rows = shadow(m.el, '.xterm-rows');
  const row = rows.children[0] as HTMLElement;
  const styles: Record<string, string> = {};
  for (const [element, name] of [
    [row, 'row'],
    [shadow(m.el, '[part="status"]'), 'status'],
    [shadow(m.el, '.xterm-helper-textarea'), 'textarea'],
  ] as const) {
    const computed = getComputedStyle(element);
    for (const property of Object.keys(HOST_STYLES)) styles[`${name} ${property}`] = computed.getPropertyValue(property);
  }
  const range = document.createRange();
  range.selectNodeContents(row);
  const textOffset = range.getBoundingClientRect().left - row.getBoundingClientRect().left;
  return { styles, textOffset };
}

afterEach(() => {
  document.body.replaceChildren();
});

describe('host styles', () => {
  it('inherited text styles of the page do not reach the terminal or its panel', async () => {
    const plain = await layout(await mount({ rows: 5, cols: 40 }));
    document.body.replaceChildren();
    const host = document.createElement('div');
    for (const [property, value] of Object.entries(HOST_STYLES)) host.style.setProperty(property, value);
    document.body.append(host);
    const styled = await layout(await mount({ rows: 5, cols: 40 }, {}, host));
    for (const [key, value] of Object.entries(plain.styles)) equal(styled.styles[key], value, key);
    ok(
      Math.abs(styled.textOffset - plain.textOffset) < 0.5,
      `the first row's text starts where it does in a plain page (${styled.textOffset} vs ${plain.textOffset} px)`,
    );
    equal(Math.round(plain.textOffset), 0, "at the row's left edge");
  });
});
