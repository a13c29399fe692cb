import { listSignInProviders } from '../../services/sign-in-provider-service.js';
import { presentSignInProviders } from '../presenters/sign-in-provider-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** What a sign-in page offers, read before anyone is signed in. */
export function signInProviderHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSignInProviders: async ({ query }) => {
      const providers = await listSignInProviders(services, query.email);
      return { status: 200, body: presentSignInProviders(present, providers) };
    },
  };
}
