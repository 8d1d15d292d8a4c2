import { wellFormed } from '../unicode.ts';
import { create } from 'qrcode';
import { fitsByLength } from './capacity.ts';

/**
 * Whether `payload` fits in a QR code at error-correction `level` (H is used when a logo is drawn).
 * Past fitsByLength it builds the symbol, so requests ask the render threads (QrRenderer.fits). With
 * one mask given rather than the best of eight chosen (which only drawing needs: whether the data
 * fits does not depend on it), a version-40 symbol costs ~6 ms of CPU, not ~40.
 */
export function fitsInQr(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  if (fitsByLength(payload, level)) return true;
  try {
    create(wellFormed(payload), { errorCorrectionLevel: level, maskPattern: 0 });
    return true;
  } catch {
    return false;
  }
}
