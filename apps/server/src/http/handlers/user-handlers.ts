import { getUserById, updateUserById } from '../../services/user-service.js';
import { presentUser } from '../presenters/user-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Users by id. */
export function userHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getUserById: async ({ caller, params }) => {
      const { user, withEmail } = await getUserById(services, caller, params.userId);
      return { status: 200, body: presentUser(present, user, { withEmail }) };
    },
    updateUserById: async ({ caller, params, body }) => {
      const { user, withEmail } = await updateUserById(services, caller, params.userId, body);
      return { status: 200, body: presentUser(present, user, { withEmail }) };
    },
  };
}
