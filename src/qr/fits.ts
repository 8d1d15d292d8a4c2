import { wellFormed } from '../unicode.ts';
import { create } from 'qrcode';

// Bytes a version-40 symbol holds in byte mode (ISO/IEC 18004, table 7). Byte mode is the costliest
// encoding qrcode can choose, so a payload within this many UTF-8 bytes always fits; building the whole
// symbol (mask scoring included) just to learn that was most of the CPU of creating a QR code.
const BYTE_CAPACITY = { L: 2953, M: 2331, Q: 1663, H: 1273 } as const;

/** Whether `payload` surely fits at `level` by its UTF-8 length alone (no symbol built); false when only building one can tell. */
export function fitsByLength(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  return payload !== '' && Buffer.byteLength(payload) <= BYTE_CAPACITY[level];
}

/**
 * Whether `payload` fits in a QR code at error-correction `level` (H is used when a logo is drawn).
 * Past fitsByLength it builds the symbol: up to ~0.2 s of CPU, so requests ask the render threads (QrRenderer.fits).
 */
export function fitsInQr(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  if (fitsByLength(payload, level)) return true;
  try {
    create(wellFormed(payload), { errorCorrectionLevel: level });
    return true;
  } catch {
    return false;
  }
}
