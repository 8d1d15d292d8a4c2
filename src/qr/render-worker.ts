/** The render pool's thread: draws QR images and checks what fits (see runQrTask) for the event loop, one task at a time, at a lower priority than it. */
import { lowerThreadPriority, serveTasks } from '../threads/task-port.ts';
import { runQrTask } from './render-task.ts';
import type { QrThreadTask } from './render-task.ts';

// Nice 10: about a tenth of the CPU weight of the event loop (nice 0) when both want a core.
lowerThreadPriority(10);
serveTasks<QrThreadTask, Uint8Array | boolean>(runQrTask);
