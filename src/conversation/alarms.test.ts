import { describe, expect, it } from 'vitest';
import { ConversationAlarms } from './alarms';

/** The Durable Object's storage as alarms.ts uses it: a synchronous KV and one alarm. */
function storage() {
  const kv = new Map<string, unknown>();
  const state = { alarm: null as number | null, sets: 0 };
  return {
    state,
    kv,
    storage: {
      kv: {
        get: <T>(key: string) => kv.get(key) as T | undefined,
        put: (key: string, value: unknown) => void kv.set(key, value),
        delete: (key: string) => kv.delete(key),
      },
      getAlarm: async () => state.alarm,
      setAlarm: async (at: number) => void ((state.alarm = at), state.sets++),
      deleteAlarm: async () => void (state.alarm = null),
    },
  };
}

describe('ConversationAlarms: one alarm, two jobs', () => {
  it('the alarm is set to the earliest job, and moves when that job is cancelled', async () => {
    const { storage: s, state } = storage();
    const alarms = new ConversationAlarms(s);
    const now = Date.now();
    await alarms.schedule('idle', now + 60_000);
    await alarms.schedule('tasks', now + 1_000);
    expect(state.alarm).toBe(now + 1_000);
    await alarms.cancel('tasks');
    expect(state.alarm).toBe(now + 60_000);
    await alarms.cancel('idle');
    expect(state.alarm).toBeNull();
  });

  it('a job scheduled later than it is already due keeps the earlier time; a past time is replaced', async () => {
    const { storage: s, state } = storage();
    const alarms = new ConversationAlarms(s);
    const now = Date.now();
    await alarms.schedule('tasks', now + 1_000);
    await alarms.schedule('tasks', now + 5_000);
    expect(state.alarm).toBe(now + 1_000);
    await alarms.schedule('tasks', now + 500);
    expect(state.alarm).toBe(now + 500);
  });

  it('when it fires, the due jobs run once each and the alarm is re-armed for the rest', async () => {
    const { storage: s, state } = storage();
    const alarms = new ConversationAlarms(s);
    const now = Date.now();
    await alarms.schedule('tasks', now + 1_000);
    await alarms.schedule('idle', now + 60_000);
    expect(alarms.takeDue(now + 1_000)).toEqual(['tasks']);
    await alarms.arm();
    expect(state.alarm).toBe(now + 60_000);
    expect(alarms.takeDue(now + 90_000)).toEqual(['idle']);
  });

  it('an alarm that fires before anything is due runs the earliest job (a forced alarm, a clock ahead of ours)', async () => {
    const { storage: s } = storage();
    const alarms = new ConversationAlarms(s);
    const now = Date.now();
    await alarms.schedule('idle', now + 60_000);
    await alarms.schedule('tasks', now + 120_000);
    expect(alarms.takeDue(now)).toEqual(['idle']);
    expect(alarms.takeDue(now)).toEqual(['tasks']);
    expect(alarms.takeDue(now)).toEqual([]);
  });

  it('due times live in storage: a new instance (after an eviction) sees what the old one kept', async () => {
    const shared = storage();
    const now = Date.now();
    await new ConversationAlarms(shared.storage).schedule('tasks', now + 1_000);
    expect(new ConversationAlarms(shared.storage).takeDue(now + 2_000)).toEqual(['tasks']);
  });
});
