import type { ServiceContext } from '../../services/context.js';
import type { PresentContext } from '../presenters/context.js';

/** What handler groups are built with: the services' context and the presenters' context. */
export interface HandlerDeps {
  services: ServiceContext;
  present: PresentContext;
}
