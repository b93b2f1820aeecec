import type { AlarmJobs, ConversationAlarms } from './alarms';
import type { LiveSessions } from './live-sessions';
import type { TaskFollower } from './tasks/task-follower';
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
  thread: Thread;
  usage: UsageOutbox;
}): AlarmJobs {
  return {
    idle: async () => {
      const lease = parts.alarms.idleLease();
      if (lease !== undefined) await parts.live.releaseIdle(lease);
    },
    tasks: async () => {
      if (parts.thread.row()) await parts.tasks.poll();
    },
    usage: () => parts.usage.flush(),
  };
}
