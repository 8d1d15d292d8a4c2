/** The site's icon: a link on the pages' green, drawn for 32 px. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f883d"/><path d="M13 19l6-6M14.5 10.5l1.8-1.8a4.6 4.6 0 0 1 6.5 6.5l-1.8 1.8M17.5 21.5l-1.8 1.8a4.6 4.6 0 0 1-6.5-6.5l1.8-1.8" fill="none" stroke="#fff" stroke-width="2.8" stroke-linecap="round"/></svg>';

/**
 * The head markup every page carries: the icon inline, so a page costs no second request and its
 * CSP needs no 'self' (a user's pixel script on the page must not reach this origin's URLs).
 */
export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`;

/** What a page's CSP must allow for FAVICON_LINK (Firefox checks an icon against img-src): data: images, which reach no server. */
export const FAVICON_CSP = { 'img-src': ['data:'] } as const;

// FAVICON_SVG drawn at 32x32 by Chromium (a PNG, transparent corners), for /favicon.ico.
const PNG_32 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAD90lEQVR4nMSXD0yUZRzHv8/zHgdm6VHMpXGXu81ZK0JN8MgwtDVm0WjWWk5F55B2hHMsmWLWpM15lQ0iNaclbhq5WUusGYZO4s8gokT+ZcSUPELE1QBbesDd4/M8+r6e4HvCu/P4bLf39zzvc8/3+3ue933e5zHBj+n5SRafZzAbjDoIYbMAMgVBgfUwRhpAfLU0PCy/I7u8V71D1CDaNX8xBfmcgEzDPYSBdfnA0js3Vv+gGbC6EpMpUIoQ4oXvRWGC2LY9G8l9tBCCqQghciTM3hgKylaGWlwgppoO0jQKH3VgvODaJgLm8HsWx0zUfZFwJixDfHQsZkRNx9nL51DnbsDu2mL8e7Uv4H+FNnnUlchgkJTHFmFr8tuYHPHAiHu91/qRc8yFsj+rAvZBYZA18W9gR+oWTfz/watovtQGj3dAli0Rk7AzNQ/2B60IuoG0OUvwzsJMrVzccBSzC19Gyv50xH36Cr77/aSsNyth+GDxBgTdQHrc61q8o+YANh3fDs/Qjcz7Pf9h7dE8VJyvk+W46KfkcxJUA59U70dXfw/eKyvA9oq9ss5hm4V4a6zW5tCZ77U4dtrjun2ZYIBvmkvlT+WthOXIWZAh4yUHnPitqwWU3MotjIbp9jXqERAZzvPLUCXTcUvcn9VzX9Pi9n86oMeoRmD9gjXISlghYzVDgX/mgg9/2iPvLZ+dijmPPCnrGrvPcgN/GTewaaETGfFLR9QPF/+oYg921R5E1jNpWJ+YrtXnnSgM2H9AA0n2ebeJbyv/TGZ4J/GdNQcxNzrmNnFh6Ne/m2HIgEIUvP9CtlbeemoX9tYd0hUfTkF1EQqqinA3dA3YH7LCZrmxN6lzn5HiIsPhcy6yVKnvbMLSr9ZhyOfFL52NGA26BmZG2bV4X/1hefXyjlXUERlOzYXTGAu6BgZurukChSryerqrdUSGYlVc+fSr+LjyCxxp+RFjRXcdaOpu0+JMPu/qwiIyVMU3PPcmNi/KgnXyVKybvwpG0DVw8UoPys/9LOMnpsxAfspmTDRPkOVwkxm5SU44Hcu09neajtEQcD8gMjuVUQzTzSkQn9q2y+flxiPCFK61yztZiKL6r2GEgEuxu+8iskq2yC+cIFwxI+bhmZp437UrcB5517C4QLE8b3OCkPv1Gohl9HDjMSiKwtcGCsuESWjtaUdJaxnWcnNN3X/AMIxdIjZXYinfESZjHOBzf5xyFw0YL7g2HcDQbh72IvT0Cm3anVvb4WVsNUKMD1gltOVb0Jlb9a04q4njEu4xQkNouTdWloiyot7oP+Fuj3zJvo95+cvOiIcfz/l+m0xEUJDH82p+PP+SH89XXMip1L7R1wEAAP//vhGxFAAAAAZJREFUAwAgVIS9l9rQQgAAAABJRU5ErkJggg==', 'base64');

/**
 * The ICO file browsers ask for at /favicon.ico (for any response without an icon of its own, JSON
 * and images included): one 32x32 image, stored as PNG (read by every browser since IE 11).
 */
export function faviconIco(): Uint8Array<ArrayBuffer> {
  // ICONDIR (reserved, type 1: icon, one image), then the image's entry: 32x32, no palette, one
  // plane, 32 bits per pixel, its length and where it starts (right after these 22 bytes).
  const header = Buffer.alloc(22);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header.writeUInt8(32, 6);
  header.writeUInt8(32, 7);
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(PNG_32.length, 14);
  header.writeUInt32LE(22, 18);
  return new Uint8Array(Buffer.concat([header, PNG_32]));
}
