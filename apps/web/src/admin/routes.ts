import type { ComponentType } from 'react';
import { redirect, type RouteObject } from 'react-router';

/*
 * The organization's settings, under /o/:organizationId/settings (the API answers no `urls.app` for members,
 * teams or permissions, so these are the app's own addresses). Each section loads on demand.
 */

const lazyScreen = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default });

export const adminRoute: RouteObject = {
  path: 'o/:organizationId/settings',
  lazy: lazyScreen(() => import('./AdminLayout.js')),
  children: [
    { index: true, loader: ({ params }) => redirect(`/o/${encodeURIComponent(params.organizationId!)}/settings/members`) },
    { path: 'members', lazy: lazyScreen(() => import('./Members.js')) },
    { path: 'teams', lazy: lazyScreen(() => import('./Teams.js')) },
    { path: 'teams/:teamId', lazy: lazyScreen(() => import('./Team.js')) },
    { path: 'invitations', lazy: lazyScreen(() => import('./Invitations.js')) },
    { path: 'permissions', lazy: lazyScreen(() => import('./Permissions.js')) },
    { path: 'permissions/:kind/:contentId', lazy: lazyScreen(() => import('./ContentPermissions.js')) },
    { path: 'git', lazy: lazyScreen(() => import('./GitSyncSpaces.js')) },
    { path: 'git/:spaceId', lazy: lazyScreen(() => import('./GitSync.js')) },
    { path: 'conversations', lazy: lazyScreen(() => import('./Clusters.js')) },
    { path: 'saml', lazy: lazyScreen(() => import('./SamlProviders.js')) },
    { path: 'saml/:samlProviderId', lazy: lazyScreen(() => import('./SamlProvider.js')) },
    { path: 'merge-rules', lazy: lazyScreen(() => import('./MergeRules.js')) },
    { path: 'openapi', lazy: lazyScreen(() => import('./OpenApiSpecs.js')) },
  ],
};
