import { randomBytes } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { takeFigures, unexcusedViolations, writeFigures } from './wire-gate.js';

/**
 * Runs in every test file (vitest `setupFiles`): after the file's tests, its wire-compatibility figures go to
 * the run's folder for the report, and the file fails on any violation the allow-list does not excuse, so
 * the fault is reported against the suite that met it.
 */
afterAll(() => {
  const taken = takeFigures();
  if (taken.length === 0) return;
  writeFigures(inject('wireGateDir'), `${process.pid}-${randomBytes(6).toString('hex')}`, taken);
  const unexcused = unexcusedViolations(taken);
  if (unexcused.length > 0) {
    throw new Error(`answers that the public API's description (@gitbook/api) rejects, not in test/gates/wire-allow-list.json:\n${unexcused.join('\n')}`);
  }
  // Validating a file's answers (compiling the validators first) takes seconds to a minute on a loaded machine.
}, 300_000);
