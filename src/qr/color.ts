/** An sRGB colour with 0..255 components. */
export type Rgb = { r: number; g: number; b: number };

const RGB_RE = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i;

/** Parses the API's colour form `rgb(R,G,B)` (whitespace allowed); null when malformed or out of range. */
export function parseRgb(value: string): Rgb | null {
  const match = RGB_RE.exec(value.trim());
  if (!match) return null;
  const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (r > 255 || g > 255 || b > 255) return null;
  return { r, g, b };
}

/** Formats a colour as lower-case `#rrggbb`. */
export function rgbToHex({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
