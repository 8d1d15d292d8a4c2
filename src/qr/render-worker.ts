/** The render pool's thread: draws QR images (see drawTask) for the event loop, one at a time. */
import { serveTasks } from '../threads/task-port.ts';
import { drawTask } from './render-task.ts';

serveTasks(drawTask);
