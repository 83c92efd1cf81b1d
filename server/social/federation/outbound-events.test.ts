import { describe, expect, it } from 'vitest';
import type { FedDeps } from './deps.ts';
import { OUTBOUND_EVENTS } from './index.ts';
import { Outbound } from './outbound.ts';

describe('the events held until Fedify is built', () => {
  it('are exactly the events Outbound sends activities for (none is lost while Fedify loads)', () => {
    const subscribed: string[] = [];
    const outbound = new Outbound({} as FedDeps, () => {
      throw new Error('no context needed to subscribe');
    });
    outbound.listen({
      on: (type) => {
        subscribed.push(type);
        return () => {};
      },
    });
    expect([...subscribed].sort()).toEqual([...OUTBOUND_EVENTS].sort());
  });
});
