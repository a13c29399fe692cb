import { purgeExpiredSpaces, SPACE_PURGE_JOB, type SpacePurgePayload } from '../services/space-lifecycle.js';
import type { JobHandler } from './runner.js';

export { SPACE_PURGE_JOB };

function spaceIdsOf(payload: unknown): string[] {
  const ids = (payload as Partial<SpacePurgePayload> | null)?.spaceIds;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw new Error('space-purge payload must be {"spaceIds": string[]}');
  return ids;
}

/**
 * Removes for good the spaces of a deletion once their 7 days of retention are over. Queued for that
 * moment by the deletion; a space restored since, or deleted again later (which queued its own job), is
 * left alone, so running it again or early is harmless.
 */
export function spacePurgeJob(options: { now?: () => number } = {}): JobHandler {
  return async (payload, { services }) => {
    await purgeExpiredSpaces(services, spaceIdsOf(payload), options.now?.() ?? Date.now());
  };
}
