/** Manifests larger than this many bytes are refused before parsing. */
export const DEFAULT_MAX_MANIFEST_BYTES = 1024 * 1024;

/** The decoded text, or where the first byte that is not UTF-8 is. */
export type DecodeResult = { ok: true; text: string } | { ok: false; line: number; col: number; message: string };

const UTF16_BOMS = [
  [0xff, 0xfe],
  [0xfe, 0xff],
];

/** Decodes UTF-8 (a leading BOM is dropped); anything else is refused with the position of the first bad byte. */
export function decodeUtf8(bytes: Uint8Array): DecodeResult {
  if (UTF16_BOMS.some(([a, b]) => bytes[0] === a && bytes[1] === b)) {
    return { ok: false, line: 1, col: 1, message: 'file is UTF-16 (byte order mark found); manifests must be UTF-8' };
  }
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);
  const bad = firstInvalidByte(bytes, text);
  if (bad === undefined) return { ok: true, text };
  const prefix = text.slice(0, bad.charIndex);
  const lastNewline = prefix.lastIndexOf('\n');
  return {
    ok: false,
    line: (prefix.match(/\n/g)?.length ?? 0) + 1,
    col: bad.charIndex - lastNewline,
    message: `file is not valid UTF-8: byte 0x${bad.byte.toString(16).padStart(2, '0')} at byte offset ${bad.byteOffset}`,
  };
}

/**
 * Finds the first replacement character the decoder produced for an invalid sequence (as opposed
 * to a real U+FFFD in the file) by walking the decoded text and the bytes side by side.
 */
function firstInvalidByte(bytes: Uint8Array, text: string): { byteOffset: number; charIndex: number; byte: number } | undefined {
  if (!text.includes('\uFFFD')) return undefined;
  let byteOffset = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let charIndex = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfffd && !(bytes[byteOffset] === 0xef && bytes[byteOffset + 1] === 0xbf && bytes[byteOffset + 2] === 0xbd)) {
      return { byteOffset, charIndex, byte: bytes[byteOffset] ?? 0 };
    }
    byteOffset += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    charIndex += ch.length;
  }
  return undefined;
}
