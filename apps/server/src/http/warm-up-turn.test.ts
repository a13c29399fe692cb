import { describe, expect, it } from 'vitest';
import { warmUpTurn } from './warm-up-turn.js';

describe('warmUpTurn', () => {
  it('waits for the requests in flight to end before the next step of the warm-up', async () => {
    let inFlight = 1;
    let wake!: () => void;
    const idle = new Promise<void>((resolve) => { wake = resolve; });
    let due = false;
    const turn = warmUpTurn(() => inFlight > 0, () => idle, 60_000).then(() => { due = true; });
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(due).toBe(false);
    inFlight = 0;
    wake();
    await turn;
    expect(due).toBe(true);
  });

  it('runs the step after the bound when requests keep coming', async () => {
    const started = performance.now();
    await warmUpTurn(() => true, () => new Promise<void>(() => {}), 30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('takes one turn of the event loop when nothing is in flight', async () => {
    let later = false;
    setImmediate(() => { later = true; });
    await warmUpTurn(() => false, () => new Promise<void>(() => {}), 60_000);
    expect(later).toBe(true);
  });
});
