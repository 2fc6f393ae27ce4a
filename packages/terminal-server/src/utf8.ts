/**
 * The one UTF-8 room: byte lengths, suffixes cut on a code point, well-formed strings. Runtime-free (no
 * Buffer, no DOM), so the protocol, which the browser imports, uses it too.
 */

/** Bytes of `text` in UTF-8; a lone surrogate counts as the replacement character it encodes to (3). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The longest suffix of `text` whose UTF-8 encoding fits `maxBytes`, cut on a code point boundary (never
 * inside a surrogate pair).
 */
export function utf8Tail(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (maxBytes <= 0) return { text: '', cut: text.length > 0 };
  if (text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes) return { text, cut: false };
  let bytes = 0;
  let index = text.length;
  while (index > 0) {
    const code = text.charCodeAt(index - 1);
    let width: number;
    let step = 1;
    if (isLowSurrogate(code) && index >= 2) {
      const high = text.charCodeAt(index - 2);
      if (high >= 0xd800 && high <= 0xdbff) {
        width = 4;
        step = 2;
      } else width = 3;
    } else if (code < 0x80) width = 1;
    else if (code < 0x800) width = 2;
    else width = 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    index -= step;
  }
  return { text: text.slice(index), cut: true };
}

/** Replace lone surrogates so that every string we emit encodes to valid UTF-8 and back. */
export function wellFormed(text: string): string {
  return (text as unknown as { toWellFormed?: () => string }).toWellFormed?.() ?? new TextDecoder().decode(new TextEncoder().encode(text));
}
