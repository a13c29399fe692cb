/**
 * Whether a patch sets anything. Kysely writes `update ... set where ...` for a patch with nothing in it (its
 * undefined values are dropped), which both dialects refuse; an update with nothing to set changes nothing.
 */
export function setsSomething(patch: object): boolean {
  return Object.values(patch).some((value) => value !== undefined);
}
