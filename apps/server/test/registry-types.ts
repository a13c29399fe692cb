// Compile-time checks of the handler registry (type-checked by `npm run typecheck`, never run): each
// `@ts-expect-error` fails the typecheck if the mistake below it stops being an error.
import type { Handlers } from '../src/http/registry.js';

export const checks: Handlers[] = [
  {
    // @ts-expect-error: not an operationId of the contract
    getNothingAtAll: async () => ({ status: 200, body: {} }),
  },
  {
    // @ts-expect-error: 201 is not a success status of getAuthenticatedUser
    getAuthenticatedUser: async ({ caller }) => ({ status: 201, body: { object: 'user', id: caller.user.id, displayName: 'x', urls: { location: 'http://x' } } }),
  },
  {
    // @ts-expect-error: the body lacks required fields of User
    getAuthenticatedUser: async () => ({ status: 200, body: { object: 'user' } }),
  },
  {
    getOrganizationById: async ({ params }) => {
      // @ts-expect-error: getOrganizationById has no spaceId parameter
      const id: string = params.spaceId;
      throw new Error(id);
    },
  },
  {
    listOrganizationsForAuthenticatedUser: async ({ query }) => {
      const limit: number | undefined = query.limit;
      // @ts-expect-error: the query of this operation has no such parameter
      const unknown = query.title;
      throw new Error(String(limit) + String(unknown));
    },
  },
];
