/** UTF-8 helpers that never split a character. */

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
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
    if (code >= 0xdc00 && code <= 0xdfff && index >= 2) {
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
  return (text as unknown as { toWellFormed?: () => string }).toWellFormed?.() ?? Buffer.from(encoder.encode(text)).toString('utf8');
}
