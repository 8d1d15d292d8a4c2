/**
 * A logo's pixels, for the render threads (render.ts): the JPEG and PNG decoders are loaded only
 * where a logo is drawn, not by the server's main thread, which reads logos without decoding them.
 */
import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { LOGO_FETCH_TIMEOUT_MS, MAX_LOGO_PIXELS, readLogo } from './logo.ts';
import type { QrLogo, RgbaImage } from './logo.ts';
import type { LogoFetch } from './public-fetch.ts';

/** Decodes a logo to RGBA; throws when the bytes are not a usable image. */
export function decodeLogo(logo: QrLogo): RgbaImage {
  if (logo.mime === 'image/jpeg') {
    const image = decodeJpeg(logo.bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_LOGO_PIXELS / 1_000_000,
      maxMemoryUsageInMB: 64,
    });
    return { width: image.width, height: image.height, data: image.data };
  }
  // PNG stores width and height big-endian in the IHDR chunk, at bytes 16..24.
  if (logo.bytes.length < 24) throw new Error('PNG logo is truncated.');
  if (logo.bytes.readUInt32BE(16) * logo.bytes.readUInt32BE(20) > MAX_LOGO_PIXELS) {
    throw new Error('PNG logo has too many pixels.');
  }
  const png = PNG.sync.read(logo.bytes);
  return { width: png.width, height: png.height, data: png.data };
}

/** readLogo, and null as well when the image does not decode (decoded on this thread: not for the event loop). */
export async function loadLogo(
  src: string,
  fetchImpl?: LogoFetch,
  timeoutMs: number = LOGO_FETCH_TIMEOUT_MS,
): Promise<QrLogo | null> {
  const logo = await readLogo(src, fetchImpl, timeoutMs);
  try {
    if (logo) decodeLogo(logo);
    return logo;
  } catch {
    return null;
  }
}
