/** A worker-pool thread for worker-pool.test.ts: tasks that answer, keep the CPU busy, throw, or end the thread. */
import { serveTasks } from '../src/threads/task-port.ts';

export type PoolTestTask = { op: 'echo'; value: unknown } | { op: 'busy'; ms: number; value: unknown } | { op: 'throw' } | { op: 'exit' } | { op: 'bytes'; n: number } | { op: 'small-bytes' };

serveTasks((task: PoolTestTask) => {
  switch (task.op) {
    case 'echo':
      return task.value;
    case 'busy': {
      const until = performance.now() + task.ms;
      while (performance.now() < until);
      return task.value;
    }
    case 'throw':
      throw new RangeError('out of range here');
    case 'exit':
      process.exit(3);
    case 'bytes':
      return new Uint8Array(task.n).fill(7);
    case 'small-bytes':
      // A slice of Node's shared pool: the thread must copy it rather than move the whole slab.
      return Buffer.from('abc');
  }
});
