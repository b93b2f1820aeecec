import { describe, expect, it } from 'vitest';
import { type TurnEvent, TurnEvents } from './turn-events';

describe('TurnEvents', () => {
  const ended: TurnEvent = { type: 'turnEnded' };

  it('tells every listener, in order, until it unsubscribes', () => {
    const events = new TurnEvents();
    const heard: string[] = [];
    const off = events.on((event) => heard.push(`a:${event.type}`));
    events.on((event) => heard.push(`b:${event.type}`));
    events.emit(ended);
    off();
    events.emit(ended);
    expect(heard).toEqual(['a:turnEnded', 'b:turnEnded', 'b:turnEnded']);
  });

  it('a listener that throws does not keep the others from hearing', () => {
    const events = new TurnEvents();
    const heard: string[] = [];
    events.on(() => {
      throw new Error('broken subscriber');
    });
    events.on((event) => heard.push(event.type));
    expect(() => events.emit(ended)).not.toThrow();
    expect(heard).toEqual(['turnEnded']);
  });
});
