import type { components } from '@quire/api-types';

type Schemas = components['schemas'];
export type Lookup = Schemas['PublishedContentLookup'];
export type LookupRedirect = Schemas['PublishedContentRedirect'];
export type PublishedSite = Schemas['PublishedContentSite'];
export type RevisionPage = Schemas['RevisionPage'];
export type RevisionFile = Schemas['RevisionFile'];
export type SiteCustomization = Schemas['SiteCustomization'];
export type SiteSpace = Schemas['SiteSpace'];
export type SiteSection = Schemas['SiteSection'];
export type SiteSectionGroup = Schemas['SiteSectionGroup'];
export type SearchResult = Schemas['SearchResult'];
