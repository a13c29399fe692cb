import { BadRequestError } from '../../errors.js';
import { getContentByUrl } from '../../services/content-url-service.js';
import { readAppAddress } from '../presenters/app-address.js';
import { presentContentAtUrl } from '../presenters/content-url-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** What an address of the app points at. */
export function contentUrlHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getContentByUrl: async ({ caller, query }) => {
      const reading = readAppAddress(present, query.url);
      if ('foreign' in reading) throw new BadRequestError(reading.foreign);
      if ('notContent' in reading) throw new BadRequestError(reading.notContent);
      return { status: 200, body: presentContentAtUrl(present, await getContentByUrl(services, caller, reading.content)) };
    },
  };
}
