import { create } from 'qrcode';

/** Whether `payload` fits in a QR code at error-correction `level` (H is used when a logo is drawn). */
export function fitsInQr(payload: string, level: 'L' | 'M' | 'Q' | 'H'): boolean {
  try {
    create(payload, { errorCorrectionLevel: level });
    return true;
  } catch {
    return false;
  }
}
