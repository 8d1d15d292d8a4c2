import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/** What a pool thread answers for one task: its value, or the name and message of what it threw. */
export type TaskReply<Out> = { ok: true; value: Out } | { ok: false; name: string; message: string };

/**
 * Serves a WorkerPool's tasks in this thread, one at a time: each message is a task, answered with
 * `work`'s value or its error. A Uint8Array value is moved to the pool's thread, not copied.
 */
export function serveTasks<In, Out>(work: (task: In) => Out | Promise<Out>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread only.');
  port.on('message', async (task: In) => {
    let reply: TaskReply<Out>;
    try {
      const value = await work(task);
      reply = { ok: true, value: value instanceof Uint8Array ? (movable(value) as Out) : value };
    } catch (err) {
      reply = { ok: false, name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply, reply.ok && reply.value instanceof Uint8Array ? [reply.value.buffer as ArrayBuffer] : []);
  });
}

// Only a buffer the value has to itself can be moved: Node's small Buffers share a pooled slab.
function movable(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/**
 * Lowers this thread's scheduling priority to `nice` (Linux only), so that on a busy machine the
 * event loop gets the CPU first and the pool's threads take what is left. On Linux a thread is
 * scheduled on its own and setpriority(0) names the calling thread; elsewhere it would name the
 * whole process, event loop included, so it is left alone there.
 */
export function lowerThreadPriority(nice: number): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(nice);
  } catch {
    // A sandbox that forbids it: the thread keeps its priority.
  }
}
