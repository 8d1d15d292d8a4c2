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
