import { getEmbedByUrl, getEmbedByUrlInSpace } from '../../services/embed-service.js';
import { presentEmbed } from '../presenters/embed-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Link cards of web pages, fetched through the URL guard. */
export function embedHandlers({ services }: HandlerDeps): Handlers {
  return {
    getEmbedByUrl: async ({ caller, query }) => ({ status: 200, body: presentEmbed(await getEmbedByUrl(services, caller, query.url)) }),
    getEmbedByUrlInSpace: async ({ caller, params, query }) => ({
      status: 200,
      body: presentEmbed(await getEmbedByUrlInSpace(services, caller, params.spaceId, query.url)),
    }),
  };
}
