import { wellFormed } from '../unicode.ts';
import { create } from 'qrcode';

// Bytes a version-40 symbol holds in byte mode (ISO/IEC 18004, table 7). Byte mode is the costliest
// encoding qrcode can choose, so a payload within this many UTF-8 bytes always fits; building the whole
// symbol (mask scoring included) just to learn that was most of the CPU of creating a QR code.
const BYTE_CAPACITY = { L: 2953, M: 2331, Q: 1663, H: 1273 } as const;

/** Whether `payload` fits in a QR code at error-correction `level` (H is used when a logo is drawn). */
export function fitsInQr(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  if (payload !== '' && Buffer.byteLength(payload) <= BYTE_CAPACITY[level]) return true;
  try {
    create(wellFormed(payload), { errorCorrectionLevel: level });
    return true;
  } catch {
    return false;
  }
}
