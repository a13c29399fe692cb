import { describe, expect, it } from 'vitest';
import { serverNodeOptions } from './processes.js';

describe('serverNodeOptions', () => {
  it('reads the Node.js options npm start runs the server with, so the benches measure the deployed server', () => {
    expect(serverNodeOptions()).toEqual(['--max-semi-space-size=32']);
  });
});
