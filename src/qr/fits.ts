import { wellFormed } from '../unicode.ts';
import { create } from 'qrcode';
import { fitsByLength } from './capacity.ts';

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
