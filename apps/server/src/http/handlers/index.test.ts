import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import type { AnyHandler, HandlerContext, Handlers } from '../registry.js';
import { HANDLER_GROUPS, allHandlers, implementedOperations, lazyHandlers, type GroupEntry } from './index.js';

// Handler groups only close over their dependencies: building them touches no database.
const deps = {
  services: { db: undefined as never, dialect: 'sqlite' as const, logger: createLogger('silent') },
  present: { publicUrl: 'http://localhost' },
};

describe('handler groups', () => {
  it('list exactly the operations their handlers answer', async () => {
    for (const entry of HANDLER_GROUPS) {
      const answered = Object.keys((await entry.load())(deps)).sort();
      expect(answered).toEqual([...entry.operations].sort());
    }
    const all = await allHandlers(deps);
    expect(Object.keys(all).sort()).toEqual(implementedOperations().sort());
    expect(new Set(implementedOperations()).size).toBe(implementedOperations().length);
  });

  it('are loaded lazily: a handler per listed operation at once, each group once, by its first call or the warm-up', async () => {
    const loaded: string[] = [];
    const answer = (title: string) => async () => ({ status: 200, body: { title } });
    const groups: GroupEntry[] = [
      { load: async () => { loaded.push('organizations'); return () => ({ getOrganizationById: answer('org'), updateOrganizationById: answer('updated') }) as unknown as Handlers; }, operations: ['getOrganizationById', 'updateOrganizationById'] },
      { load: async () => { loaded.push('spaces'); return () => ({ getSpaceById: answer('space') }) as unknown as Handlers; }, operations: ['getSpaceById'] },
      { load: async () => { loaded.push('wrong'); return () => ({ getCollectionById: answer('collection') }) as unknown as Handlers; }, operations: ['listCollectionsInOrganizationById'] },
    ];
    const lazy = lazyHandlers(deps, groups);
    expect(Object.keys(lazy.handlers).sort()).toEqual(['getOrganizationById', 'getSpaceById', 'listCollectionsInOrganizationById', 'updateOrganizationById']);
    expect(loaded).toEqual([]);
    const call = (operationId: string) => (lazy.handlers as Record<string, AnyHandler>)[operationId]!({} as HandlerContext<never>);

    expect(await Promise.all([call('getOrganizationById'), call('updateOrganizationById')])).toEqual([{ status: 200, body: { title: 'org' } }, { status: 200, body: { title: 'updated' } }]);
    expect(await call('getOrganizationById')).toEqual({ status: 200, body: { title: 'org' } });
    expect(loaded).toEqual(['organizations']);
    // A group that does not answer what it lists is refused, each time it is asked for.
    await expect(call('listCollectionsInOrganizationById')).rejects.toThrow(/answers getCollectionById but handlers\/index.ts lists listCollectionsInOrganizationById/);

    let turns = 0;
    await expect(lazy.warm(async () => { turns++; })).rejects.toThrow(/listCollectionsInOrganizationById/);
    expect(loaded).toEqual(['organizations', 'wrong', 'spaces', 'wrong']);
    expect(turns).toBe(3);
    expect(await call('getSpaceById')).toEqual({ status: 200, body: { title: 'space' } });
    expect(loaded).toEqual(['organizations', 'wrong', 'spaces', 'wrong']);
  });

  it('warm up every listed group', async () => {
    let turns = 0;
    expect(await lazyHandlers(deps).warm(async () => { turns++; })).toBe(HANDLER_GROUPS.length);
    expect(turns).toBe(HANDLER_GROUPS.length);
  });
});
