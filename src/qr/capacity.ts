/**
 * What fits in a QR code by length alone, without the QR library (fits.ts builds a symbol when only
 * that can tell, in the render threads): the server's main thread asks this first.
 */

// Bytes a version-40 symbol holds in byte mode (ISO/IEC 18004, table 7). Byte mode is the costliest
// encoding qrcode can choose, so a payload within this many UTF-8 bytes always fits; building the whole
// symbol (mask scoring included) just to learn that was most of the CPU of creating a QR code.
const BYTE_CAPACITY = { L: 2953, M: 2331, Q: 1663, H: 1273 } as const;

/** Whether `payload` surely fits at `level` by its UTF-8 length alone (no symbol built); false when only building one can tell. */
export function fitsByLength(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  return payload !== '' && Buffer.byteLength(payload) <= BYTE_CAPACITY[level];
}
