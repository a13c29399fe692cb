import { ForbiddenError, NotFoundError } from '../errors.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import { canReadUser, canSeeUserEmail, canUpdateUser } from '../policies/user-policy.js';
import { findSharedMemberships } from '../stores/organization-store.js';
import { findUserById, updateUser, type UserRow } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/* Users by id (`getUserById`, `updateUserById`): read through a shared organization, changed by themselves. */

export interface UserView {
  user: UserRow;
  withEmail: boolean;
}

function userNotFound(): NotFoundError {
  return new NotFoundError('No user matches this id');
}

async function readableUser(context: ServiceContext, caller: Caller, userId: string): Promise<UserView> {
  const shared = (await findSharedMemberships(context.db, caller.user.id, userId)).map((row) => membershipFromRow(row));
  if (!canReadUser(caller.user.id, userId, shared)) throw userNotFound();
  const user = userId === caller.user.id ? caller.user : await findUserById(context.db, userId);
  if (!user) throw userNotFound();
  return { user, withEmail: canSeeUserEmail(caller.user.id, userId, shared) };
}

export async function getUserById(context: ServiceContext, caller: Caller, userId: string): Promise<UserView> {
  return readableUser(context, caller, userId);
}

export async function updateUserById(context: ServiceContext, caller: Caller, userId: string, body: { displayName?: string; photoURL?: string }): Promise<UserView> {
  return inTransaction(context, async (tx) => {
    const view = await readableUser(tx, caller, userId);
    if (!canUpdateUser(caller.user.id, userId)) throw new ForbiddenError('Only the user changes their own profile');
    await updateUser(tx.db, userId, {
      ...(body.displayName !== undefined ? { display_name: body.displayName } : {}),
      ...(body.photoURL !== undefined ? { photo_url: body.photoURL } : {}),
    });
    return { ...view, user: (await findUserById(tx.db, userId))! };
  });
}
