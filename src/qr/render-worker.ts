/** The render pool's thread: draws QR images (see drawTask) for the event loop, one at a time, at a lower priority than it. */
import { lowerThreadPriority, serveTasks } from '../threads/task-port.ts';
import { drawTask } from './render-task.ts';

// Nice 10: about a tenth of the CPU weight of the event loop (nice 0) when both want a core.
lowerThreadPriority(10);
serveTasks(drawTask);
