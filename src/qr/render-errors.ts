/**
 * The errors of drawing a QR code, apart from the drawing (render.ts, which loads the PNG and QR
 * libraries): the server's main thread names them without loading what only the render threads run.
 */

/** Thrown when a payload does not fit in the largest QR code at the chosen error correction. */
export class QrTooLongError extends Error {
  constructor() {
    super('The content is too long to fit in a QR code.');
    this.name = 'QrTooLongError';
  }
}

/** Thrown when a logo's bytes do not decode as an image; the code can still be drawn without it. */
export class LogoDecodeError extends Error {
  constructor(cause: unknown) {
    super(`The logo does not decode: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'LogoDecodeError';
  }
}
