/**
 * The sizes QR images are drawn at, px: powers of two and the halfway steps between them, 64 to
 * 2048. A requested size is drawn at the nearest of them, so that asking for every size from 64 to
 * 2048 costs 11 renders per code and format, not 1,985.
 */
export const QR_IMAGE_SIZES = [64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048] as const;

/** The step of QR_IMAGE_SIZES nearest to `size` by ratio (a tie goes to the larger). */
export function snapQrSize(size: number): number {
  let best: number = QR_IMAGE_SIZES[0];
  for (const step of QR_IMAGE_SIZES) {
    if (Math.max(step, size) / Math.min(step, size) <= Math.max(best, size) / Math.min(best, size)) best = step;
  }
  return best;
}
