import { ConflictError } from '../errors.js';
import { lockOrganizationStructure } from '../stores/collection-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/** A collection or space about to be moved, restored, duplicated or deleted, and how to read it. */
export interface StructureTarget<Access> {
  /** Reads it with the caller's access (throwing as the read does when they may not see it). */
  load(tx: ServiceContext): Promise<Access>;
  organizationOf(access: Access): string;
  /** Other organizations whose structure the write changes too (a transfer's destination). */
  extraOrganizations?(access: Access): Promise<string[]>;
  /** What it is, for the 409 when it moved to another organization while the lock was awaited. */
  noun: 'collection' | 'space';
}

/**
 * Runs `work` in a transaction holding the structure lock of the target's organization (and of its
 * `extraOrganizations`). On PostgreSQL the target is read again once the lock is held, so that what `work`
 * decides on is what the lock protects.
 */
export async function withLockedStructure<Access, T>(
  context: ServiceContext,
  target: StructureTarget<Access>,
  work: (tx: ServiceContext, access: Access) => Promise<T>,
): Promise<T> {
  return inTransaction(context, async (tx) => {
    let access = await target.load(tx);
    const organizationId = target.organizationOf(access);
    await lockOrganizationStructure(tx.db, context.dialect, [organizationId, ...((await target.extraOrganizations?.(access)) ?? [])]);
    if (context.dialect === 'postgres') {
      const locked = await target.load(tx);
      if (target.organizationOf(locked) !== organizationId) throw new ConflictError(`The ${target.noun} moved while this request ran; try again`);
      access = locked;
    }
    return work(tx, access);
  });
}
