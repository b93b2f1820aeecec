import type { AlarmJobs, ConversationAlarms } from './alarms';
import type { LiveSessions } from './live-sessions';
import type { TurnRunner } from '../turn/runner';
import type { TaskFollower } from '../turn/tasks/task-follower';
import { pollTasks } from '../turn/tasks/task-poll';
import type { Thread } from './thread';
import type { UsageOutbox } from './usage-outbox';

/**
 * What the object's alarm runs, by job (alarms.ts): the idle release of the
 * MCP sessions (for the lease the schedule kept), and the polling of running
 * tasks (which may continue a turn: the alarm handler waits for it, so the
 * object stays up while it streams), and the usage the ledger did not take.
 */
export function alarmJobs(parts: {
  alarms: ConversationAlarms;
  live: LiveSessions;
  tasks: TaskFollower;
  turns: TurnRunner;
  thread: Thread;
  usage: UsageOutbox;
}): AlarmJobs {
  return {
    idle: async () => {
      const lease = parts.alarms.idleLease();
      if (lease !== undefined) await parts.live.releaseIdle(lease);
    },
    tasks: async () => {
      if (parts.thread.row()) await pollTasks(parts.tasks, parts.turns);
    },
    usage: () => parts.usage.flush(),
  };
}
