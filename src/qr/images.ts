import { imageKey, QrImageCache } from './image-cache.ts';
import type { RenderTask } from './render-task.ts';
import type { QrRenderer } from './renderer.ts';

/**
 * QR images as the /qr/<alias> route answers them: from the cache when held; else joined to the
 * same image's render when one is under way; else rendered once `admit` lets the render start
 * (the per-client limit: only renders are counted, cached answers never).
 */
export class QrImages {
  private readonly rendering = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  constructor(
    readonly renderer: QrRenderer,
    readonly cache: QrImageCache,
  ) {}

  /** The image of `task`; whatever `admit` throws when it refuses the render. */
  async get(task: RenderTask, admit: () => void | Promise<void>): Promise<Uint8Array<ArrayBuffer>> {
    const key = imageKey(task);
    const ready = this.cache.get(key) ?? this.rendering.get(key);
    if (ready) return ready;
    await admit();
    // The limiter may have answered asynchronously (Redis): the image may have come meanwhile.
    const since = this.cache.get(key) ?? this.rendering.get(key);
    if (since) return since;
    const render = this.renderer.render(task);
    this.rendering.set(key, render);
    try {
      const image = await render;
      this.cache.set(key, image);
      return image;
    } finally {
      this.rendering.delete(key);
    }
  }
}
