import type { ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { RequireSession } from './layout/RequireSession.js';
import { AppShell } from './layout/AppShell.js';
import { NotFound } from './screens/NotFound.js';
import { SignIn } from './screens/SignIn.js';
// Administration (appadmin): the organization's settings, a route of its own with lazy sections.
import { adminRoute } from './admin/routes.js';

/*
 * The addresses are the `urls.app` the API answers for each resource (apps/server/src/http/presenters), so a
 * link copied from any API answer opens its screen. Screens past sign-in load on demand: the first screen's
 * JavaScript stays small, and the renderer and the editor load only with the screens that use them.
 */

const lazyScreen = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default });

const screens: RouteObject[] = [
  { index: true, lazy: lazyScreen(() => import('./screens/Home.js')) },
  { path: 'o/:organizationId', lazy: lazyScreen(() => import('./screens/Organization.js')) },
  { path: 'o/:organizationId/c/:collectionId', lazy: lazyScreen(() => import('./screens/Collection.js')) },
  { path: 'o/:organizationId/sites/:siteId', lazy: lazyScreen(() => import('./screens/Site.js')) },
  { path: 'o/:organizationId/openapi/:specSlug', lazy: lazyScreen(() => import('./screens/OpenApiSpec.js')) },
  { path: 'o/:organizationId/insights/clusters/:clusterId', lazy: lazyScreen(() => import('./screens/Cluster.js')) },
  { path: 'integrations/:integrationName', lazy: lazyScreen(() => import('./screens/Integration.js')) },
  { path: 'o/:organizationId/s/:spaceId/~/revisions/:revisionId', lazy: lazyScreen(() => import('./screens/Revision.js')) },
  { path: 'o/:organizationId/s/:spaceId/~/changes/:changeNumber/*', lazy: lazyScreen(() => import('./screens/ChangeRequest.js')) },
  { path: 'o/:organizationId/s/:spaceId/~/pages/:pageId', lazy: lazyScreen(() => import('./screens/Space.js')) },
  { path: 'o/:organizationId/s/:spaceId/*', lazy: lazyScreen(() => import('./screens/Space.js')) },
  // Administration (appadmin).
  adminRoute,
  { path: '*', Component: NotFound },
];

export const router = createBrowserRouter([
  { path: '/sign-in', Component: SignIn },
  { path: '/join/:secret', lazy: lazyScreen(() => import('./screens/Join.js')) },
  { element: <RequireSession />, children: [{ element: <AppShell />, children: screens }] },
]);
