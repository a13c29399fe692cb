import type { components } from '@quire/api-types';
import type { UserRow } from '../../stores/user-store.js';
import { apiUrl, type PresentContext } from './context.js';

export type ApiUser = components['schemas']['User'];

/** `withEmail`: the address is shown only to the user and to admins of organizations they belong to. */
export function presentUser(context: PresentContext, user: UserRow, options: { withEmail: boolean }): ApiUser {
  return {
    object: 'user',
    id: user.id,
    displayName: user.display_name,
    ...(options.withEmail ? { email: user.email } : {}),
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: apiUrl(context, `/users/${encodeURIComponent(user.id)}`) },
  };
}
