import { fitsInQr } from './fits.ts';
import type { QrLogo } from './logo.ts';
import { LogoDecodeError, renderQrPng, renderQrSvg } from './render.ts';
import type { ErrorCorrection } from './render.ts';

/** One QR image to draw, with everything its bytes depend on (what the render pool is sent, and what the image cache is keyed by). */
export interface RenderTask {
  format: 'png' | 'svg';
  payload: string;
  size: number;
  margin: number;
  errorCorrection: ErrorCorrection;
  foreground: string;
  background: string;
  /** The logo's file bytes; whether they decode is found out here, off the event loop. */
  logo: QrLogo | null;
}

/**
 * The image of `task`: PNG bytes, or the SVG document as UTF-8. A logo that does not decode is left
 * out, and the code drawn as it would be without one (what a logo that cannot be used always got).
 */
export async function drawTask(task: RenderTask): Promise<Uint8Array> {
  const { format, payload, logo, ...options } = task;
  const draw = async (withLogo: QrLogo | null) => {
    const opts = withLogo ? { ...options, logo: withLogo } : options;
    return format === 'svg' ? Buffer.from(await renderQrSvg(payload, opts)) : await renderQrPng(payload, opts);
  };
  // Between threads a Buffer arrives as a plain Uint8Array; the renderer wants Buffer's methods back.
  const bytes = logo ? { mime: logo.mime, bytes: Buffer.from(logo.bytes.buffer, logo.bytes.byteOffset, logo.bytes.byteLength) } : null;
  try {
    return await draw(bytes);
  } catch (err) {
    if (err instanceof LogoDecodeError) return draw(null);
    throw err;
  }
}

/** What the render threads are asked: an image to draw, or whether a payload fits at a level (fitsInQr). */
export type QrThreadTask = { draw: RenderTask } | { fits: string; level: ErrorCorrection };

/** Does a QrThreadTask: the image's bytes, or whether the payload fits. */
export function runQrTask(task: QrThreadTask): Promise<Uint8Array> | boolean {
  return 'draw' in task ? drawTask(task.draw) : fitsInQr(task.fits, task.level);
}
