/**
 * Tabs in a model's text reach bash's line editor as text. readline takes a typed Tab for completion, so
 * the tab-indented lines of a heredoc (a Makefile's recipes) lost their tabs, a tab inside quotes
 * vanished, and an empty word could open a "Display all N possibilities?" question. Each tab goes in
 * after Ctrl-V: readline's quoted-insert, and the line discipline's literal-next for a line that a program
 * reading line by line takes instead. Tabs that end a text not submitted are a person's Tab: completion.
 */

/** Ctrl-V: the next character is inserted as it is. */
const QUOTED_INSERT = '\x16';

/** `input` with every tab quoted but a run of them at its very end (a text sent without Enter, asking for
 *  completion; with Enter, the input ends with its carriage return). */
export function literalTabs(input: string): string {
  const completion = /\t+$/.exec(input)?.[0] ?? '';
  return input.slice(0, input.length - completion.length).replaceAll('\t', `${QUOTED_INSERT}\t`) + completion;
}
