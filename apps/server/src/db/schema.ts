/**
 * The row types of every table, as Kysely sees them. Booleans are stored as integers (0/1) and JSON as text
 * so that the same migrations and queries run on SQLite and PostgreSQL; timestamps are ISO-8601 strings.
 * A family that adds tables adds its interfaces here and a migration in ./migrations/.
 */

import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  /** Always lower-cased before it is stored or compared. */
  email: string;
  display_name: string;
  photo_url: string | null;
  created_at: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Set on sessions started by a sign-in (0130): the token acts in this organization only. */
  organization_id: string | null;
  /** Set on sessions (0130): the token stops working at this time. */
  expires_at: string | null;
}

export interface OrganizationsTable {
  id: string;
  title: string;
  created_at: string;
  /** JSON array of strings. */
  email_domains: string;
  hostname: string | null;
  type: 'business' | 'community';
  use_case: string | null;
  community_type: string | null;
  /** The role given to people who join; null makes them guests. */
  default_role: string | null;
  default_site_id: string | null;
  sso: number;
  ai: number;
  invite_links: number;
  /** JSON of the `mergeRules` object. */
  merge_rules: string;
  custom_hostname: string | null;
  logo_url: string | null;
  /**
   * Counts the changes to who reaches which content of the organization, bumped by the database's triggers
   * (migration 0202) in the transaction of each change; stores/reach-cache.ts validates what it keeps by it.
   */
  access_version: Generated<number>;
}

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  /** null for a guest, who has no organization-wide role. */
  role: string | null;
  joined_at: string;
  last_seen_at: string | null;
  sso: number;
  disabled: number;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobsTable {
  id: string;
  kind: string;
  /** JSON of the job's input. */
  payload: string;
  status: JobStatus;
  /** The job is not claimed before this time (the first run, or the next retry after a backoff). */
  run_at: string;
  attempts: number;
  max_attempts: number;
  /** While a worker runs the job, its lease ends here; a lease that lapsed means the worker died. */
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface CountersTable {
  scope: string;
  name: string;
  value: number;
}

export type TeamMemberRole = 'owner' | 'member';

export interface TeamsTable {
  id: string;
  organization_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: TeamMemberRole;
  added_at: string;
}

export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface CollectionsTable {
  id: string;
  organization_id: string;
  /** null at the top level of the organization. */
  parent_id: string | null;
  title: string;
  /** null when the collection has no description. */
  description: string | null;
  /** A role, `inherit`, or null (grants nothing by default). */
  default_level: string | null;
  /** Sortable key among the siblings (collections and spaces) under the same parent; compared byte by byte. */
  position: string;
  created_at: string;
  updated_at: string;
}

export interface SpacesTable {
  id: string;
  organization_id: string;
  /** null at the top level; a deleted space keeps it even after the collection is gone. */
  collection_id: string | null;
  title: string;
  /** An empty string when the space has none. */
  emoji: string;
  visibility: string;
  edit_mode: string;
  /** A role, `inherit`, or null (grants nothing by default). */
  default_level: string | null;
  language: string | null;
  /** JSON of the `mergeRules` object. */
  merge_rules: string;
  /** The current main revision. */
  revision_id: string;
  /** JSON of the space's Git sync state and latest operation (`SpaceGitSyncCopy`), once it is synchronized. */
  git_sync: string | null;
  /** JSON of the `visitorAuth` object. */
  visitor_auth: string | null;
  /** Sortable key among the siblings (collections and spaces) under the same parent; compared byte by byte. */
  position: string;
  created_at: string;
  updated_at: string;
  /** Set while the space is deleted (restorable for 7 days). */
  deleted_at: string | null;
  /** Counters kept by the services that create comments and change requests, in the same transactions. */
  comments_count: number;
  change_requests_count: number;
  change_requests_open: number;
  change_requests_draft: number;
}

/** Immutable content objects keyed by the SHA-256 of their bytes (see content/hash.ts). */
export interface ContentObjectsTable {
  hash: string;
  kind: 'root' | 'page' | 'file' | 'reusable' | 'blob';
  body: Uint8Array;
  size: number;
}

export interface RevisionsTable {
  id: string;
  space_id: string;
  /** `edits`, `merge`, `rollback`, `update`, `computed`. */
  type: string;
  /** JSON array of the parent revision ids. */
  parents: string;
  /** Hash of the tree root object. */
  root: string;
  created_at: string;
  created_by: string | null;
  /** JSON of the Git commit the revision comes from or went to. */
  git: string | null;
  change_request_id: string | null;
}

/** A change request of a space (0030). */
export interface ChangeRequestsTable {
  id: string;
  space_id: string;
  /** The space's organization when the request was made (lists go through the space's current one). */
  organization_id: string;
  /** 1, 2, 3... within the space, from the counter store. */
  number: number;
  /** `draft`, `open`, `archived` or `merged`. */
  status: string;
  subject: string;
  /** JSON of the description JSONDocument, or null. */
  description: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** The request's current revision. */
  revision_id: string;
  /** The space's main revision when the request was made. */
  revision_initial: string;
  /** The main revision last brought into the request by an update. */
  revision_merged_ancestor: string | null;
  /** The main revision the merge made. */
  revision_merged: string | null;
  merged_at: string | null;
  merged_by: string | null;
  /** Open comments on the request, kept exact by the comment service. */
  comments_count: number;
  conversations_issues_cluster: string | null;
}

/** Users who created a change request or made a revision of it (the `contributor` filter). */
export interface ChangeRequestContributorsTable {
  change_request_id: string;
  user_id: string;
}

/** Users whose review of a change request was asked for. */
export interface ChangeRequestReviewersTable {
  change_request_id: string;
  user_id: string;
  requested_at: string;
  /**
   * Who asked, and the change request's revision when they did (0170). Nullable columns (added to an existing
   * table), filled for every row by the migration and always written by the store.
   */
  requested_by: string;
  revision_id: string;
}

/** Reviews of change requests (0160), each given on one revision of the request. */
export interface ChangeRequestReviewsTable {
  id: string;
  change_request_id: string;
  reviewer_id: string;
  /** `approved` or `changes-requested`. */
  status: string;
  /** Before 0171, JSON of the CommentBody given with the review; now always null (see comment_id). */
  comment: string | null;
  revision_id: string;
  created_at: string;
  /** Who had asked the reviewer for this review, when someone had (0170). */
  requested_by: string | null;
  /** The discussion comment written with the review (0171), null when none was or once it is deleted. */
  comment_id: string | null;
}

/** A role granted on a space (0161) to a user or a team; `role_rank` orders roles (read 1 ... admin 6). */
export interface SpaceGrantsTable {
  space_id: string;
  /** `user` or `team`. */
  principal: string;
  principal_id: string;
  user_id: string | null;
  team_id: string | null;
  role: string;
  role_rank: number;
  created_at: string;
}

/** A role granted on a collection (0161), applying to everything inside it. */
export interface CollectionGrantsTable {
  collection_id: string;
  principal: string;
  principal_id: string;
  user_id: string | null;
  team_id: string | null;
  role: string;
  role_rank: number;
  created_at: string;
}

/** Marks that the links of a revision were worked out and stored in `revision_links` (0035). */
export interface RevisionLinkSetsTable {
  revision_id: string;
  /** Distinct link targets (items of the revision's link list), and how many of them are broken. */
  total: number;
  broken: number;
  computed_at: string;
}

/** One link target used by one page of a revision (0035); every row of an item has the same status. */
export interface RevisionLinksTable {
  revision_id: string;
  /** The relation and the target, e.g. `reference:page:<id>` or `reference:url:<sha256 of the URL>`. */
  item_key: string;
  /** `page` (or `reusable-content`). */
  source_kind: string;
  source_id: string;
  /** `reference` or `dependsOn`. */
  relation: string;
  /** `ok`, `broken` or `in-app`. */
  status: string;
  /** `page`, `file`, `space`, `openapi` or `url`. */
  target_kind: string;
  target_id: string | null;
  target_url: string | null;
}

/** Which revision a space's search rows come from, and the block of row ids the space writes in (0040). */
export interface SearchSpacesTable {
  space_id: string;
  revision_id: string;
  /** Row ids of the space are `row_block * 2^32 + n`, so one id range holds exactly the space's rows. */
  row_block: number;
  /** Row numbers of the block used so far (PostgreSQL answers this bigint as a string). */
  next_row: number | string;
  page_count: number;
  section_count: number;
  indexed_at: string;
  /** The format its rows were made in (0370): a reindex by tree comparison needs the current one. */
  row_format: Generated<number>;
}

/**
 * One section of a page of a space's current revision, as search finds and shows it (0040). On SQLite the
 * FTS5 table `search_fts` indexes it by id; on PostgreSQL a generated `search_vector` column (not listed
 * here: it is never read or written directly) does.
 */
export interface SearchSectionsTable {
  /** bigint on PostgreSQL (answered as a string there). */
  id: number | string;
  space_id: string;
  revision_id: string;
  page_id: string;
  page_hash: string;
  section_position: number;
  depth: number;
  section_id: string;
  page_title: string;
  page_path: string;
  /** JSON array of the titles of the pages above. */
  ancestors: string;
  section_title: string;
  body: string;
}

/** Per space and folded word, how many sections and pages hold it (0400): the idf of search's ranking. */
export interface SearchTermsTable {
  space_id: string;
  term: string;
  sections: number;
  pages: number;
}

/** A word whose impact in a section reaches the threshold of search-rank.ts (0400), read best-first. */
export interface SearchPostingsTable {
  space_id: string;
  term: string;
  /** The impact, negated: the key's ascending order is best first. */
  minus_impact: number;
  /** The page's depth and id, as search breaks ties. */
  depth: number;
  page_id: string;
  /** bigint on PostgreSQL (answered as a string there). */
  row_id: number | string;
}

/** How a space is synchronized with a Git repository (0060); URLs never hold credentials. */
export interface GitSyncStatesTable {
  space_id: string;
  url: string | null;
  ref: string | null;
  project_directory: string | null;
  /** `github`, `gitlab` or `github-legacy`. */
  provider: string | null;
  repo_name: string | null;
  repo_tree_url: string | null;
  repo_commit_url: string | null;
  /** The commit the space's content last matched, and the revision it matched. */
  commit_oid: string | null;
  revision_id: string | null;
  /** `timestamp` of the newest operation applied to the space (ISO-8601). */
  last_timestamp: string | null;
  /** The latest operation queued on the space. */
  operation_id: string | null;
  updated_at: string;
}

export type GitSyncDirection = 'import' | 'export';
export type GitSyncOperationState = 'running' | 'success' | 'failure' | 'timeout';

/** One import or export of a space (0060). */
export interface GitSyncOperationsTable {
  id: string;
  space_id: string;
  direction: GitSyncDirection;
  state: GitSyncOperationState;
  standalone: number;
  force: number;
  /** Without credentials. */
  url: string;
  ref: string;
  timestamp: string | null;
  job_id: string | null;
  created_by: string | null;
  started_at: string;
  ended_at: string | null;
  /** Why it failed; never holds credentials. */
  error: string | null;
  commit_oid: string | null;
  revision_id: string | null;
}

/** A discussion in a space (0050). Body forms: `markdown` (text), `document` (JSON of it), `empty` (''). */
export interface CommentsTable {
  id: string;
  space_id: string;
  change_request_id: string | null;
  /** The revision the comment was posted on. */
  revision_id: string;
  page_id: string | null;
  node_id: string | null;
  table_record: string | null;
  table_definition: string | null;
  author_id: string;
  body_format: 'markdown' | 'document' | 'empty';
  body: string;
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_by: string | null;
  posted_at: string;
  edited_at: string | null;
  /** The change request review the comment was written with (0171), or null. */
  review_id: string | null;
}

export interface CommentRepliesTable {
  id: string;
  comment_id: string;
  space_id: string;
  author_id: string;
  body_format: 'markdown' | 'document' | 'empty';
  body: string;
  posted_at: string;
  edited_at: string | null;
}

/** One person's reaction with one emoji on a comment (reply_id null) or a reply; `subject_id` is that id. */
export interface CommentReactionsTable {
  subject_id: string;
  comment_id: string;
  reply_id: string | null;
  emoji: string;
  user_id: string;
  reacted_at: string;
}

/** A support conversation as ingested (0140). */
export interface ConversationsTable {
  id: string;
  organization_id: string;
  source: string;
  external_id: string;
  subject: string | null;
  /** JSON of the ConversationPart array. */
  parts: string;
  /** JSON of the ConversationMetadata object. */
  metadata: string;
  content_hash: string;
  started_at: string;
  created_at: string;
  updated_at: string;
  processed_at: string | null;
}

export type ConversationClusterStatus = 'pending' | 'analysing' | 'ready';

export interface ConversationClustersTable {
  id: string;
  organization_id: string;
  label: string;
  summary: string;
  icon: string;
  status: ConversationClusterStatus;
  /** JSON object term -> summed weight. */
  terms: string;
  sequence: number;
  issues_count: number;
  conversations_count: number;
  created_at: string;
  updated_at: string;
}

export interface ConversationIssuesTable {
  id: string;
  organization_id: string;
  conversation_id: string;
  cluster_id: string | null;
  position: number;
  title: string;
  summary: string;
  /** JSON object term -> weight. */
  terms: string;
  source: string;
  /** ISO date (YYYY-MM-DD) of the Monday of the week the conversation started. */
  week: string;
  ingested_at: string;
  created_at: string;
}

export interface ConversationTermsTable {
  organization_id: string;
  term: string;
  issues: number;
}

export interface ConversationAnalysisStatesTable {
  organization_id: string;
  issues: number;
  clusters_made: number;
  version: number;
  updated_at: string;
}

/** An entry of an organization's translation glossary (0141). */
export interface GlossaryEntriesTable {
  id: string;
  organization_id: string;
  /** JSON object: canonical language tag -> term. */
  translations: string;
  created_at: string;
  batch_index: number;
  updated_at: string;
}

/** An integration published to the installation, with its current version (0142). */
export interface IntegrationsTable {
  name: string;
  owner_id: string;
  version: number;
  title: string;
  visibility: string;
  target: string;
  verified: number;
  has_blocks: number;
  has_content_sources: number;
  created_at: string;
  updated_at: string;
}

export interface IntegrationVersionsTable {
  name: string;
  version: number;
  /** JSON of the published definition without script, images and secrets. */
  definition: string;
  runtime: string;
  script_blob: string;
  icon_blob: string | null;
  icon_type: string | null;
  /** JSON array of {blob, type}. */
  preview_images: string;
  /** Sealed JSON of the secrets, or null. */
  secrets: string | null;
  published_by: string | null;
  published_at: string;
}

export type IntegrationTagKind = 'category' | 'scope' | 'blockDomain';

export interface IntegrationTagsTable {
  name: string;
  kind: IntegrationTagKind;
  value: string;
}

/** A SAML identity provider of an organization (0130); the IdP fields are null until configured. */
export interface SamlProvidersTable {
  id: string;
  organization_id: string;
  label: string;
  sso_url: string | null;
  entity_id: string | null;
  certificate: string | null;
  default_team_id: string | null;
  /** A role, or null: people joining through the provider become guests. */
  default_role: string | null;
  created_at: string;
  updated_at: string;
  /** PEM certificate of the service provider's signing key (0180); null until first needed. */
  sp_certificate: string | null;
  /** The signing key, PKCS#8 PEM sealed with services/sealed-values.ts (0180). */
  sp_private_key: string | null;
}

/** Assertion ids a provider's responses carried, accepted once each (0130). */
export interface SamlAssertionsTable {
  provider_id: string;
  assertion_id: string;
  expires_at: string;
}

/** AuthnRequests sent to a provider, until answered (0131). */
export interface SamlRequestsTable {
  request_id: string;
  provider_id: string;
  created_at: string;
}

/** One-time codes that hand a signed-in session to the command line (0130). */
export interface CliAuthCodesTable {
  code_hash: string;
  user_id: string;
  organization_id: string;
  redirect_uri: string;
  expires_at: string;
  created_at: string;
}

/** An OpenAPI specification of an organization (0120). */
export interface OpenApiSpecsTable {
  id: string;
  organization_id: string;
  slug: string;
  source_url: string | null;
  source_text: string | null;
  /** `private` or `public`. */
  visibility: string;
  /** `pending`, `progress` or `complete`. */
  processing_state: string;
  generation: number;
  last_version_id: string | null;
  last_processed_at: string | null;
  /** `FETCH_TIMEOUT`, `FETCH_ERROR` or `PARSE_ERROR`. */
  last_process_error_code: string | null;
  /** JSON array of {message, code?}. */
  last_processed_errors: string | null;
  created_at: string;
  updated_at: string;
}

/** A version of an OpenAPI specification, content-addressed within it (0120). */
export interface OpenApiSpecVersionsTable {
  id: string;
  spec_id: string;
  content_hash: string;
  number: number;
  spec_version: string;
  root_text: string;
  /** `json` or `yaml`. */
  root_format: string;
  /** JSON object: file name -> parsed document. */
  filesystem: string;
  created_at: string;
}

/** A docs site (0100). */
export interface SitesTable {
  id: string;
  organization_id: string;
  type: string;
  title: string;
  visibility: string;
  /** 0 or 1. */
  published: number;
  basename: string | null;
  hostname: string | null;
  proxy: string | null;
  /** 0 or 1. */
  adaptive_content: number;
  agents_context: string;
  /** JSON SiteCustomization. */
  customizations: string;
  /** JSON SiteAdaptiveJSONSchema, or null. */
  adaptive_schema: string | null;
  adaptive_schema_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A group of site sections (0100). */
export interface SiteSectionGroupsTable {
  id: string;
  site_id: string;
  parent_id: string | null;
  title: string;
  icon: string | null;
  position: string;
  created_at: string;
}

/** A section of a docs site (0100). */
export interface SiteSectionsTable {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  icon: string | null;
  path: string;
  condition: string | null;
  /** 0 or 1: the section readers land on. */
  is_default: number;
  position: string;
  created_at: string;
}

/** The link between a docs site (or one of its sections) and a space it publishes (0100). */
export interface SiteSpacesTable {
  id: string;
  site_id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  condition: string | null;
  /** 0 or 1: the default site space of its level. */
  is_default: number;
  position: string;
  /** JSON SiteCustomization overriding the site's. */
  customizations: string;
  created_at: string;
}

/** A share link of a docs site (0100): its key is kept hashed (lookup) and sealed (display). */
export interface SiteShareLinksTable {
  id: string;
  site_id: string;
  name: string;
  /** 0 or 1. */
  active: number;
  key_hash: string;
  sealed_key: string;
  created_at: string;
}

/** An image uploaded for a site's customization (0440): its bytes are the file store's `blob_hash`. */
export interface SiteImagesTable {
  id: string;
  site_id: string;
  blob_hash: string;
  name: string;
  content_type: string;
  size: number;
  width: number;
  height: number;
  created_by: string;
  created_at: string;
}

/** A path of a docs site that sends visitors elsewhere in it (0210); the destination's ids by its kind. */
export interface SiteRedirectsTable {
  id: string;
  site_id: string;
  source: string;
  /** `site-section`, `site-space` or `site-page`. */
  destination_kind: string;
  site_section_id: string | null;
  site_space_id: string | null;
  page_id: string | null;
  created_at: string;
}

/** The visitor authentication of a `visitor-auth` site (0200): its backend and sealed HS256 key. */
export interface SiteVisitorAuthTable {
  site_id: string;
  backend_url: string;
  sealed_key: string;
  /** New with every key; visitor tokens name it. */
  key_id: string;
  updated_at: string;
}

/** The password of a user who has one (0215): the argon2id hash in its PHC string form, never the password. */
/** OpenID Connect sign-ins between their start and the provider's answer (0260). */
export interface OidcPendingLoginsTable {
  /** SHA-256 of the `state` sent to the provider, hex. */
  state_hash: string;
  /** SHA-256 of the PKCE code verifier the starting browser holds in its cookie, hex. */
  binding_hash: string;
  nonce: string;
  return_path: string | null;
  created_at: string;
  expires_at: string;
}

/** The user each subject of an OpenID Connect issuer signs in as (0260). */
export interface UserOidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: string;
}

export interface UserPasswordsTable {
  user_id: string;
  password_hash: string;
  changed_at: string;
}

export interface OrganizationInvitesTable {
  id: string;
  organization_id: string;
  /** `email` (one person, one use) or `link` (anyone holding it, up to `max_uses`). */
  kind: string;
  email: string | null;
  /** null: the person joins as a guest. */
  role: string | null;
  sso: number;
  secret_hash: string;
  sealed_secret: string;
  expires_at: string;
  /** null: no limit. */
  max_uses: number | null;
  uses: number;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
  /** An invite link to one space (0310): the person joins as a guest with `level` on it. */
  space_id: string | null;
  /** An invite link to one collection (0310): the person joins as a guest with `level` on it. */
  collection_id: string | null;
  /** The role granted on the space or collection; null on an invitation to the organization. */
  level: string | null;
}

export interface OrganizationInviteUsesTable {
  invite_id: string;
  user_id: string;
  used_at: string;
}

/**
 * One thing a visitor of a docs site did (0230). Visitors and sessions as keyed hashes; the starts of the
 * hour, day, week (Monday) and month of `occurred_at` (UTC ISO strings); '' for an unknown referrer or UTM
 * parameter; the columns of other event types null.
 */
export interface SiteInsightEventsTable {
  id: string;
  site_id: string;
  event_type: string;
  occurred_at: string;
  hour_start: string;
  day_start: string;
  week_start: string;
  month_start: string;
  visitor_hash: string;
  session_hash: string;
  url: string;
  display_context: string;
  site_section_id: string | null;
  site_space_id: string | null;
  site_share_link_id: string | null;
  space_id: string | null;
  revision_id: string | null;
  page_id: string | null;
  device: string;
  browser: string;
  os: string;
  /** A crawler's name, or '' for a person. */
  bot: string;
  language: string | null;
  referrer: string;
  referrer_domain: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  utm_term: string;
  utm_content: string;
  search_query: string | null;
  feedback_rating: string | null;
  feedback_comment: string | null;
  /** 1 or -1. */
  answer_rating: number | null;
  /** The clicked link's target as JSON. */
  link_target: string | null;
  link_target_kind: string | null;
  link_target_domain: string | null;
  link_position: string | null;
  api_operation_path: string | null;
  api_operation_method: string | null;
  ad_domain: string | null;
  ad_placement: string | null;
  trademark_placement: string | null;
}

/** A browser's session (0240): the SHA-256 of its cookie's secret, never the secret; see the migration. */
export interface BrowserSessionsTable {
  id: string;
  user_id: string;
  secret_hash: string;
  /** `password`, `saml` or `oidc`. */
  method: string;
  /** Set for a session opened through an organization's SSO: it acts there only. */
  organization_id: string | null;
  created_at: string;
  last_used_at: string;
  /** The absolute expiry; the idle one is `last_used_at` plus the configured idle time. */
  expires_at: string;
  user_agent: string | null;
  address: string | null;
}

/** A user's TOTP second factor (0240): the secret sealed, confirmed by a first code, the last step used. */
export interface UserTotpTable {
  user_id: string;
  secret_sealed: string;
  created_at: string;
  confirmed_at: string | null;
  last_used_step: number | null;
}

/** A recovery code of a user's second factor (0240): its SHA-256 only, spent once. */
export interface UserRecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A file kept in the database (0270): its content key, its size, and the chunk set holding its bytes. */
export interface BlobsTable {
  hash: string;
  /** bigint on PostgreSQL (answered as a string there). */
  size: number | string;
  chunk_set: string;
  created_at: string;
}

/** One chunk (at most 1 MiB) of a file kept in the database, numbered from 0 within its chunk set (0270). */
export interface BlobChunksTable {
  chunk_set: string;
  seq: number;
  data: Uint8Array;
}

/** An upload to the database store under way (or abandoned by a crash): its chunk set and when it began (0270). */
export interface BlobUploadsTable {
  id: string;
  started_at: string;
}

export interface Database {
  blobs: BlobsTable;
  blob_chunks: BlobChunksTable;
  blob_uploads: BlobUploadsTable;
  users: UsersTable;
  user_passwords: UserPasswordsTable;
  organization_invites: OrganizationInvitesTable;
  organization_invite_uses: OrganizationInviteUsesTable;
  oidc_pending_logins: OidcPendingLoginsTable;
  user_oidc_identities: UserOidcIdentitiesTable;
  browser_sessions: BrowserSessionsTable;
  user_totp: UserTotpTable;
  user_recovery_codes: UserRecoveryCodesTable;
  api_tokens: ApiTokensTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  jobs: JobsTable;
  counters: CountersTable;
  collections: CollectionsTable;
  spaces: SpacesTable;
  content_objects: ContentObjectsTable;
  revisions: RevisionsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  server_secrets: ServerSecretsTable;
  change_requests: ChangeRequestsTable;
  change_request_contributors: ChangeRequestContributorsTable;
  change_request_reviewers: ChangeRequestReviewersTable;
  change_request_reviews: ChangeRequestReviewsTable;
  space_grants: SpaceGrantsTable;
  collection_grants: CollectionGrantsTable;
  revision_link_sets: RevisionLinkSetsTable;
  revision_links: RevisionLinksTable;
  search_spaces: SearchSpacesTable;
  search_sections: SearchSectionsTable;
  search_terms: SearchTermsTable;
  search_postings: SearchPostingsTable;
  comments: CommentsTable;
  comment_replies: CommentRepliesTable;
  comment_reactions: CommentReactionsTable;
  git_sync_states: GitSyncStatesTable;
  git_sync_operations: GitSyncOperationsTable;
  conversations: ConversationsTable;
  conversation_clusters: ConversationClustersTable;
  conversation_issues: ConversationIssuesTable;
  conversation_terms: ConversationTermsTable;
  conversation_analysis_states: ConversationAnalysisStatesTable;
  glossary_entries: GlossaryEntriesTable;
  integrations: IntegrationsTable;
  integration_versions: IntegrationVersionsTable;
  integration_tags: IntegrationTagsTable;
  saml_providers: SamlProvidersTable;
  saml_assertions: SamlAssertionsTable;
  saml_requests: SamlRequestsTable;
  cli_auth_codes: CliAuthCodesTable;
  openapi_specs: OpenApiSpecsTable;
  openapi_spec_versions: OpenApiSpecVersionsTable;
  sites: SitesTable;
  site_section_groups: SiteSectionGroupsTable;
  site_sections: SiteSectionsTable;
  site_spaces: SiteSpacesTable;
  site_redirects: SiteRedirectsTable;
  site_share_links: SiteShareLinksTable;
  site_images: SiteImagesTable;
  site_visitor_auth: SiteVisitorAuthTable;
  site_insight_events: SiteInsightEventsTable;
}
