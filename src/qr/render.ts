import { wellFormed } from '../unicode.ts';
import { PNG } from 'pngjs';
import { create } from 'qrcode';
import { parseRgb, rgbToHex, type Rgb } from './color.ts';
import type { QrLogo, RgbaImage } from './logo.ts';
import { decodeLogo } from './logo-decode.ts';
import { LogoDecodeError, QrTooLongError } from './render-errors.ts';

/** Colour and logo helpers and the errors, re-exported so that callers need only this module to render. */
export { parseRgb, rgbToHex } from './color.ts';
export { LogoDecodeError, QrTooLongError } from './render-errors.ts';
export { parseDataUri, type QrLogo } from './logo.ts';
export { loadLogo } from './logo-decode.ts';

/** QR error-correction levels, from 7% (L) to 30% (H) of the code recoverable. */
export const ERROR_CORRECTION_LEVELS = ['L', 'M', 'Q', 'H'] as const;

/** One of ERROR_CORRECTION_LEVELS. */
export type ErrorCorrection = (typeof ERROR_CORRECTION_LEVELS)[number];

/** How a QR code is drawn. */
export type QrRenderOptions = {
  /** Image width and height in px, 64..2048; a PNG is raised to one px per module if that is more. */
  size: number;
  /** Quiet zone around the code, in modules, 0..16. */
  margin: number;
  /** Forced to H when a logo is drawn, so the covered modules can be recovered. */
  errorCorrection: ErrorCorrection;
  foreground: string;
  background: string;
  logo?: QrLogo;
};

/** Defaults applied to options that are not given. */
export const DEFAULT_RENDER_OPTIONS = {
  size: 300,
  margin: 2,
  errorCorrection: 'M',
  foreground: 'rgb(0,0,0)',
  background: 'rgb(255,255,255)',
} as const satisfies QrRenderOptions;

/** A rectangle in module units. */
type Box = { x: number; y: number; w: number; h: number };

type Layout = {
  modules: { get(row: number, col: number): number };
  count: number;
  margin: number;
  /** Modules across the whole image, quiet zone included. */
  total: number;
  size: number;
  fg: Rgb;
  bg: Rgb;
  logo?: { image: RgbaImage; source: QrLogo; box: Box; pad: Box };
};

/**
 * Renders `payload` as a PNG image of `size` px. Modules are whole pixels, so scanners see even
 * modules; the pixels left over widen the quiet zone.
 */
export async function renderQrPng(payload: string, opts: Partial<QrRenderOptions> = {}): Promise<Buffer> {
  const layout = lay(payload, opts);
  const width = Math.max(layout.size, layout.total);
  const scale = Math.floor(width / layout.total);
  const offset = Math.floor((width - layout.total * scale) / 2);
  const toModule = Int32Array.from({ length: width }, (_, px) => Math.floor((px - offset) / scale) - layout.margin);
  const inCode = (m: number) => m >= 0 && m < layout.count;
  const png = new PNG({ width, height: width });
  for (let y = 0; y < width; y++) {
    const row = toModule[y] ?? -1;
    for (let x = 0; x < width; x++) {
      const col = toModule[x] ?? -1;
      const dark = inCode(row) && inCode(col) && layout.modules.get(row, col) === 1;
      setPixel(png.data, (y * width + x) * 4, dark ? layout.fg : layout.bg);
    }
  }
  if (layout.logo) {
    const px = (b: Box) => ({
      x0: offset + Math.round(b.x * scale),
      y0: offset + Math.round(b.y * scale),
      x1: offset + Math.round((b.x + b.w) * scale),
      y1: offset + Math.round((b.y + b.h) * scale),
    });
    const pad = px(layout.logo.pad);
    for (let y = pad.y0; y < pad.y1; y++) {
      for (let x = pad.x0; x < pad.x1; x++) setPixel(png.data, (y * width + x) * 4, layout.bg);
    }
    drawImage(png.data, width, layout.logo.image, px(layout.logo.box), layout.bg);
  }
  return PNG.sync.write(png);
}

/** Renders `payload` as an SVG document, the logo embedded as a data: URI. */
export async function renderQrSvg(payload: string, opts: Partial<QrRenderOptions> = {}): Promise<string> {
  const layout = lay(payload, opts);
  const { total, count, margin } = layout;
  let d = '';
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) {
      if (layout.modules.get(row, col) !== 1) continue;
      let run = 1;
      while (col + run < count && layout.modules.get(row, col + run) === 1) run++;
      d += `M${col + margin} ${row + margin}h${run}v1h-${run}z`;
      col += run - 1;
    }
  }
  const bg = rgbToHex(layout.bg);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.size}" height="${layout.size}" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">`,
    `<rect width="${total}" height="${total}" fill="${bg}"/>`,
    `<path fill="${rgbToHex(layout.fg)}" d="${d}"/>`,
  ];
  if (layout.logo) {
    const { pad, box, source } = layout.logo;
    const attrs = (b: Box) => `x="${round(b.x)}" y="${round(b.y)}" width="${round(b.w)}" height="${round(b.h)}"`;
    parts.push(`<rect ${attrs(pad)} fill="${bg}"/>`);
    parts.push(`<image ${attrs(box)} href="data:${source.mime};base64,${source.bytes.toString('base64')}"/>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

function lay(payload: string, opts: Partial<QrRenderOptions>): Layout {
  const size = opts.size ?? DEFAULT_RENDER_OPTIONS.size;
  const margin = opts.margin ?? DEFAULT_RENDER_OPTIONS.margin;
  const level = opts.errorCorrection ?? DEFAULT_RENDER_OPTIONS.errorCorrection;
  if (!Number.isInteger(size) || size < 64 || size > 2048) throw new RangeError('size must be an integer from 64 to 2048.');
  if (!Number.isInteger(margin) || margin < 0 || margin > 16) throw new RangeError('margin must be an integer from 0 to 16.');
  if (!ERROR_CORRECTION_LEVELS.includes(level)) throw new RangeError('errorCorrection must be L, M, Q or H.');
  const fg = parseRgb(opts.foreground ?? DEFAULT_RENDER_OPTIONS.foreground);
  const bg = parseRgb(opts.background ?? DEFAULT_RENDER_OPTIONS.background);
  if (!fg || !bg) throw new RangeError('Colours must be of the form rgb(R,G,B).');
  let qr;
  try {
    qr = create(wellFormed(payload), { errorCorrectionLevel: opts.logo ? 'H' : level });
  } catch (error) {
    if (error instanceof Error && /too big/.test(error.message)) throw new QrTooLongError();
    throw error;
  }
  const count = qr.modules.size;
  const total = count + 2 * margin;
  const layout: Layout = { modules: qr.modules, count, margin, total, size, fg, bg };
  if (opts.logo) {
    let image: RgbaImage;
    try {
      image = decodeLogo(opts.logo);
    } catch (err) {
      throw new LogoDecodeError(err);
    }
    // The logo fits in a square of 20% of the code's width; H correction recovers what it hides.
    const side = count * 0.2;
    const ratio = image.width / image.height;
    const w = ratio >= 1 ? side : side * ratio;
    const h = ratio >= 1 ? side / ratio : side;
    const box = { x: (total - w) / 2, y: (total - h) / 2, w, h };
    const pad = { x: box.x - 1, y: box.y - 1, w: w + 2, h: h + 2 };
    layout.logo = { image, source: opts.logo, box, pad };
  }
  return layout;
}

function setPixel(data: Uint8Array, i: number, { r, g, b }: Rgb): void {
  data[i] = r;
  data[i + 1] = g;
  data[i + 2] = b;
  data[i + 3] = 255;
}

/** Draws `image` into the rectangle with nearest-neighbour scaling, blending its alpha over `bg`. */
function drawImage(
  data: Uint8Array,
  width: number,
  image: RgbaImage,
  rect: { x0: number; y0: number; x1: number; y1: number },
  bg: Rgb,
): void {
  const w = rect.x1 - rect.x0, h = rect.y1 - rect.y0;
  for (let y = 0; y < h; y++) {
    const sy = Math.floor((y * image.height) / h);
    for (let x = 0; x < w; x++) {
      const s = (sy * image.width + Math.floor((x * image.width) / w)) * 4;
      const a = (image.data[s + 3] ?? 255) / 255;
      const blend = (c: number | undefined, under: number) => Math.round((c ?? 0) * a + under * (1 - a));
      setPixel(data, ((rect.y0 + y) * width + rect.x0 + x) * 4, {
        r: blend(image.data[s], bg.r),
        g: blend(image.data[s + 1], bg.g),
        b: blend(image.data[s + 2], bg.b),
      });
    }
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
