import { newEvent } from '../events/event-types.ts';
import type { Services } from '../resources/define.ts';
import type { Tx } from '../store/store.ts';
import type { JobState } from './job-rows.ts';
import type { OutcomeCounts } from './outcome.ts';

/** What an ended import tells: which job (null for the command line's), whose, and how its rows ended. */
export interface ImportEnded extends OutcomeCounts {
  id: number | null;
  userId: number;
  format: string;
  dryRun: boolean;
  state: Extract<JobState, 'finished' | 'failed'>;
  total: number;
  message: string | null;
}

/**
 * Called once per import that ends, inside the transaction that records its end (the job's last
 * write; for `import-links`, after its last batch): the one place where the `import.finished`
 * webhook event is to be appended, so that the event is stored if and only if the end is.
 */
export async function importEnded(tx: Tx, s: Pick<Services, 'log' | 'clock'>, ended: ImportEnded): Promise<void> {
  s.log.info('import ended', { ...ended });
  // A dry run changed nothing: nothing to tell.
  if (ended.dryRun) return;
  const { userId: _owner, dryRun: _dry, ...data } = ended;
  await tx.appendEvents([newEvent(ended.userId, 'import.finished', { source: 'links', ...data }, s.clock)]);
}
