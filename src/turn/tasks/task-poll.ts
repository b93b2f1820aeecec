import { errorFields, logEvent } from '../../observability/log';
import type { TurnRunner } from '../runner';
import type { TaskFollower } from './task-follower';

/** How long a poll waits for a turn that is still saving the answer the tasks belong to. */
const BUSY_RETRY_MS = 500;

/**
 * The alarm's `tasks` job, the one place a task's end meets the turn: the follower polls what is due and settles
 * what ended (task-follower.ts); when that settled a call of the last answer, the runner decides whether the answer
 * goes on (TurnRunner.continueIfReady: nothing of it waits any more) and the alarm waits for that turn — the object
 * stays up while it streams to the tabs and to GET …/stream. Neither knows the other: the follower never starts a
 * turn, the runner never asks the follower.
 */
export async function pollTasks(
  tasks: TaskFollower,
  turns: Pick<TurnRunner, 'busy' | 'continueIfReady'>,
): Promise<void> {
  if (!tasks.pending) return;
  // The turn that started a task may still be saving its answer: the answer is its to write until then.
  if (turns.busy) return tasks.pollIn(BUSY_RETRY_MS);
  const { answerSettled } = await tasks.poll();
  let turnRan = false;
  if (answerSettled) {
    try {
      const stream = await turns.continueIfReady();
      await stream?.ended;
      turnRan = stream !== undefined;
    } catch (error) {
      // A continuation that fails leaves an answer the user can follow up on, not one that waits forever.
      logEvent('task.continue', errorFields(error), 'warn');
    }
  }
  await tasks.afterPoll(turnRan);
}
