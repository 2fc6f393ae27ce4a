// One redraw per scroll instead of two while nothing is selected (skipEmptySelectionRedraws below).
import type { Terminal } from '@xterm/xterm';

/** A selection end as xterm.js passes it: [column, buffer row], or undefined for no selection. */
type SelectionPoint = [number, number] | undefined;

interface RenderServiceInternals {
  handleSelectionChanged(start: SelectionPoint, end: SelectionPoint, columnSelectMode: boolean): void;
}

function hasSelection(start: SelectionPoint, end: SelectionPoint): boolean {
  return !!start && !!end && (start[0] !== end[0] || start[1] !== end[1]);
}

/**
 * Stop xterm.js 6.0's DOM renderer from drawing every row a second time on each scroll while nothing is
 * selected.
 *
 * Why: xterm.js refreshes the selection on every scroll (so a selection follows its text), and its DOM
 * renderer answers each refresh by rebuilding all rows, selection or not. In output that scrolls, that is
 * every frame: the rows are built by the normal render and again by the selection refresh, which doubles the
 * renderer's work and the page's style and layout. A refresh from "nothing selected" to "nothing selected"
 * changes no pixel, so it is dropped here; every other change (a selection made, moved or cleared) goes
 * through as before.
 *
 * This reaches into xterm.js internals (`_core._renderService`), one reason the xterm.js version is pinned
 * exactly. When they are not where 6.0 has them, nothing is changed and the result is false; the element's
 * browser test that counts row builds then fails, so an upgrade cannot lose this silently.
 */
export function skipEmptySelectionRedraws(term: Terminal): boolean {
  const core = (term as unknown as { _core?: { _renderService?: Partial<RenderServiceInternals> } })._core;
  const service = core?._renderService;
  const original = service?.handleSelectionChanged;
  if (!service || typeof original !== 'function') return false;
  let selectionDrawn = false;
  service.handleSelectionChanged = (start, end, columnSelectMode) => {
    const selecting = hasSelection(start, end);
    if (!selecting && !selectionDrawn) return;
    selectionDrawn = selecting;
    original.call(service, start, end, columnSelectMode);
  };
  return true;
}
