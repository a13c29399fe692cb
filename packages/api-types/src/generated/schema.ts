// Generated from openapi/v1.yaml by scripts/generate-api-types.mjs. DO NOT EDIT: change the spec and run `npx turbo build`.
/* eslint-disable */
export interface paths {
    "/auth/cli/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a sign-in code for a command-line token
         * @description The last step of signing the command line in through single sign-on, as `gh auth login` does: the
         *     command line listens on a loopback address and opens
         *     `/auth/cli/start?redirect=http://127.0.0.1:<port>/<path>&state=<random>&provider=<samlProviderId>` in the
         *     browser; once the person is signed in, the browser is sent to that address with a one-time `code` and the
         *     same `state`. The command line exchanges the code here, with the same `redirectURI`, for an API token.
         *
         *     A code works once and for five minutes. The token acts in the organization the person signed in to, and
         *     only there, and expires after 30 days. Needs no bearer token: the code is the credential.
         */
        post: operations["exchangeCliAuthCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a collection
         * @description Answers one collection, with the caller's `permissions` on it. A collection the caller cannot see, such as
         *     one of another organization, answers 404 exactly like a missing one.
         */
        get: operations["getCollectionById"];
        put?: never;
        post?: never;
        /**
         * Delete a collection
         * @description Deletes the collection together with the collections and spaces inside it. The spaces become deleted
         *     spaces, which can be restored one by one during 7 days (see `restoreSpace`); a restored space returns
         *     to the top level of the organization when its collection no longer exists. Needs the `admin` permission
         *     of the collection. Deleting a collection that does not exist, or no longer exists, also answers 204.
         */
        delete: operations["deleteCollectionById"];
        options?: never;
        head?: never;
        /**
         * Update a collection
         * @description Changes the title, description or default level of the collection; fields left out keep their value.
         *     The body must hold at least one field. Needs the `admin` permission of the collection.
         */
        patch: operations["updateCollectionById"];
        trace?: never;
    };
    "/collections/{collectionId}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a collection
         * @description Moves the collection, with everything inside it, within its organization: `parent` names the collection
         *     to move it into (`null` moves it to the top level; left out keeps the current parent), and `position`
         *     places it among its new siblings (last when left out). The body must hold at least one of the two
         *     fields, and a `position` pointer must name a sibling under the destination.
         *
         *     Needs the `admin` permission of the collection and, when the parent changes, the `create` permission
         *     of the new parent collection (or `createContent` of the organization for the top level).
         *     Answers 400 when the move would put the collection inside itself or one of its own descendants, or
         *     when a `position` pointer is not a sibling under the destination; 404 when the new parent or a pointed
         *     sibling cannot be found; and 409 when the collection is already where the request would put it.
         */
        post: operations["moveCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the spaces of a collection
         * @description Lists the spaces directly inside the collection (not those of the collections inside it) that the caller
         *     can see, in their order within the collection. Deleted spaces are left out. Needs the `view` permission
         *     of the collection.
         */
        get: operations["listSpacesInCollectionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer a collection to another organization
         * @description Moves the collection, with the collections and spaces inside it, to the top level of another
         *     organization. The caller needs the `admin` permission of the collection and the `createContent`
         *     permission of the target organization.
         *
         *     Answers 404 when the collection or the target organization cannot be found (an organization the caller
         *     does not belong to counts as absent), 409 when the collection already belongs to the target
         *     organization, and 412 when the collection cannot leave its organization in its current state, for
         *     example because one of its spaces is linked to a docs site of that organization.
         */
        post: operations["transferCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List integrations
         * @description Answers the integrations the caller can find, sorted by name: every `public` integration, plus the
         *     `private` and `unlisted` ones owned by organizations the caller belongs to. The filters combine; each
         *     one left out does not filter. Any authenticated caller may list integrations.
         */
        get: operations["listIntegrations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/{integrationName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an integration
         * @description Answers the integration with this name. Any authenticated caller may read a `public` or `unlisted`
         *     integration; a `private` one answers 404 to callers outside the organization that owns it.
         */
        get: operations["getIntegrationByName"];
        put?: never;
        /**
         * Publish an integration
         * @description Publishes a version of the integration with this name: creates the integration, owned by the
         *     `organization` of the body, when the name is free, or replaces the definition of the existing one and
         *     adds one to its `version` (1, 2, ...). The script, the icon and the preview images are kept as files and
         *     served from the integration's `urls`; the images must really be images (PNG, JPEG, GIF, WebP or SVG).
         *     `secrets` are sealed at rest and never answered. `verified` is decided by the operators of the
         *     installation only (`npm run admin -- verify-integration`); publishing never changes it.
         *
         *     The caller must be an admin of the `organization` (given by id, or subdomain for organizations that have
         *     one); 404 when that organization is unknown to the caller, 403 when the caller is not one of its admins,
         *     409 when the name belongs to an integration of another organization (a name belongs to its first owner).
         *     The script can be up to 5 MB and each image up to 2 MB, so this operation accepts bodies of up to 20 MB.
         *     Answers 200 with the integration.
         */
        post: operations["publishIntegration"];
        /**
         * Unpublish an integration
         * @description Removes the integration with this name, every version of it, its files and its sealed secrets; the name
         *     becomes free for any organization. Only admins of the organization that owns it may unpublish it (403
         *     for other callers who can see it). Answers 204, also when no integration has this name or the caller
         *     cannot see it.
         */
        delete: operations["unpublishIntegration"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's organizations
         * @description Lists the organizations the caller belongs to, as a member or as a guest, each with the caller's
         *     `permissions` in it. Organizations the caller does not belong to are never listed.
         */
        get: operations["listOrganizationsForAuthenticatedUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an organization
         * @description Answers one organization the caller belongs to, with the caller's `permissions` in it. An organization
         *     the caller does not belong to answers 404, exactly like one that does not exist.
         */
        get: operations["getOrganizationById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an organization
         * @description Changes the title or the merge rules of the organization. Merge rules take effect at once: every open
         *     change request of a space whose rules are `inherit` is judged by the new ones at its next merge. Users
         *     named by a rule must be members of the organization (400 otherwise). Needs the organization's `admin`
         *     permission (403); an organization the caller does not belong to answers 404.
         */
        patch: operations["updateOrganizationById"];
        trace?: never;
    };
    "/orgs/{organizationId}/change-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the change requests of an organization
         * @description Lists the change requests of every space of the organization the caller can read, most recently updated
         *     first. Takes the same filters as the list of a space: only `open` ones unless `status` asks for another
         *     status, and the other filters narrow the list further. Needs membership of the organization.
         */
        get: operations["listChangeRequestsForOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/collections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the collections of an organization
         * @description Lists the collections of the organization that the caller can see. With `nested` true (the default)
         *     collections inside other collections are listed too; with `nested` false only the collections at the top
         *     level of the organization are. The caller must belong to the organization; otherwise the organization
         *     answers 404.
         */
        get: operations["listCollectionsInOrganizationById"];
        put?: never;
        /**
         * Create a collection
         * @description Creates a collection in the organization, at the top level or, with `parent`, inside another collection
         *     of the same organization. Every field is optional, but the body must be a JSON object (`{}` is
         *     accepted); without a title the collection gets an empty one. The new collection inherits its default
         *     level.
         *
         *     The caller needs the `createContent` permission of the organization (role `create` or above) for a
         *     collection at the top level, or the `create` permission of the parent collection. An unknown or
         *     invisible parent collection answers 404.
         */
        post: operations["createCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversations
         * @description Answers the support conversations ingested into the organization, most recently ingested first,
         *     optionally only those of one source. Every member of the organization may list them (guests: 403).
         */
        get: operations["listConversations"];
        put?: never;
        /**
         * Ingest conversations
         * @description Adds one support conversation, or a batch of 1 to 1000, to the organization, under the `source` given
         *     (`integration:api:default` when none is). Ingestion is idempotent per source and `id`: sending a
         *     conversation again replaces the earlier one (its issues are found again when its content changed) and
         *     never makes a second one. The batch is all or nothing: when one conversation is invalid, none is ingested.
         *
         *     Ingested conversations are analysed in the background, all those waiting in one pass: the issues their
         *     customer raised are found, each joins the cluster of issues about the same problem or starts a new one,
         *     and `processedAt` is set. The caller needs the organization's `ingestConversations` right (organization
         *     role `edit` or higher). Answers 204 with no body.
         */
        post: operations["ingestConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations-clusters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the issue clusters of conversations
         * @description Answers the clusters into which the issues found in the organization's support conversations are
         *     grouped, with their figures, sorted by `orderBy` in the `order` given (ties by id). Every member of the
         *     organization may list them (guests: 403). 404 when the organization is unknown to the caller.
         */
        get: operations["listConversationsIssuesClusters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations-clusters/{clusterId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an issue cluster of conversations
         * @description Answers one cluster of the issues found in the organization's support conversations, with its figures.
         *     Every member of the organization may read it (guests: 403). 404 when the organization has no cluster
         *     with this id.
         */
        get: operations["getConversationsIssuesCluster"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations-issues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversation issues
         * @description Answers the issues found in the organization's support conversations, newest first, each with the
         *     conversation it was found in; optionally only those of one cluster or of one conversation. Every member
         *     of the organization may list them (guests: 403).
         */
        get: operations["listConversationsIssues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations-issues/{issueId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a conversation issue
         * @description Answers one issue found in the organization's support conversations, with the conversation it was found in. Every member of the organization may read it (guests get 403). 404 when the organization has no issue with this id.
         */
        get: operations["getConversationIssueById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/conversations/{conversationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a conversation
         * @description Answers one support conversation of the organization with its parts and metadata. Every member of the organization may read it (guests get 403). 404 when the organization has no conversation with this id.
         */
        get: operations["getConversationById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the members of an organization
         * @description Answers the members of the organization, one page at a time, newest first by default. Filter by `role`
         *     (`guest` selects members without an organization-wide role) and by `search`, which matches the display
         *     name or the e-mail address. Sorting by `lastSeenAt` lists only the members who have been seen at least
         *     once (see the ping operation); members never seen are left out of that list.
         *
         *     Needs the `listMembers` permission of the organization.
         */
        get: operations["listMembersInOrganizationById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a member of an organization
         * @description Answers the membership of a user in the organization. Answers 404 when the user is not a member.
         *
         *     Needs the `listMembers` permission of the organization, unless the caller asks for themselves.
         */
        get: operations["getMemberInOrganizationById"];
        put?: never;
        post?: never;
        /**
         * Remove a member from an organization
         * @description Removes the user from the organization, with their team memberships and the access granted to them
         *     directly. Answers 204 also when the user was not a member. The last admin of an organization cannot be
         *     removed (409).
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["removeMemberFromOrganizationById"];
        options?: never;
        head?: never;
        /**
         * Change the role of a member
         * @description Sets the organization-wide role of a member; `null` makes the member a guest, who reaches only the
         *     content shared with them. The last admin of an organization cannot lose the `admin` role (409).
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateMemberInOrganizationById"];
        trace?: never;
    };
    "/orgs/{organizationId}/members/{userId}/spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the spaces a member can access
         * @description Answers the spaces of the organization that the member can access, each with the role the member has on
         *     it (from the organization, a collection, a team or a direct grant, whichever is highest). Answers 404
         *     when the user is not a member.
         *
         *     Needs the `listMembers` permission of the organization, unless the caller asks for themselves.
         */
        get: operations["listSpacesForOrganizationMember"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/members/{userId}/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a member an SSO member
         * @description Marks the member as signing in through the organization's SAML single sign-on, so that `sso` becomes
         *     true. Takes no body. Answers 404 when the user is not a member of the organization.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["setUserAsSSOMemberForOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/members/{userId}/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the teams of a member
         * @description Answers the teams of the organization that the member belongs to, each with the member's role in the
         *     team. `title` keeps only the teams whose title contains it, ignoring case. Answers 404 when the user is
         *     not a member.
         *
         *     Needs the `listTeams` permission of the organization, unless the caller asks for themselves.
         */
        get: operations["listTeamsForOrganizationMember"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OpenAPI specifications
         * @description Answers the OpenAPI specifications of the organization, ordered by slug. Every member of the organization
         *     may list them.
         */
        get: operations["listOpenAPISpecs"];
        put?: never;
        /**
         * Create an OpenAPI specification
         * @description Creates a specification with the given slug from a source: a URL that the server fetches, or the text
         *     of the document. The specification is answered at once with `processingState` `pending`; the source is
         *     fetched and parsed in the background, and each successful processing adds a version.
         *
         *     The caller needs the organization's `createOpenAPISpec` right (organization role `create` or higher).
         *     A slug already used in the organization answers 409.
         */
        post: operations["createOpenAPISpec"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an OpenAPI specification
         * @description Answers the specification of the organization that has this slug. Every member of the organization may read it.
         */
        get: operations["getOpenAPISpecBySlug"];
        /**
         * Create or update an OpenAPI specification
         * @description Sets the source of the specification with this slug, creating the specification when the organization
         *     has none with that slug. The new source is processed in the background (`processingState` goes back to
         *     `pending`), and adds a version when processing succeeds; earlier versions are kept.
         *
         *     Answers 200 when an existing specification was updated and 201 when one was created. Updating needs the
         *     specification's `edit` right and creating the organization's `createOpenAPISpec` right (organization
         *     role `create` or higher in both cases).
         */
        put: operations["createOrUpdateOpenAPISpecBySlug"];
        post?: never;
        /**
         * Delete an OpenAPI specification
         * @description Deletes the specification with this slug and all its versions. Content that refers to it no longer
         *     resolves. Needs the specification's `edit` right. A specification that does not exist also answers 204;
         *     404 means that the organization itself is unknown to the caller.
         */
        delete: operations["deleteOpenAPISpecBySlug"];
        options?: never;
        head?: never;
        /**
         * Change the visibility of an OpenAPI specification
         * @description Sets who can read the specification: `private` keeps it to the members of the organization, `public`
         *     makes its latest version available to anyone with its public link (`urls.published`). Needs the
         *     specification's `edit` right.
         */
        patch: operations["updateOpenAPISpecBySlug"];
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the versions of an OpenAPI specification
         * @description Answers the versions of the specification, newest first. A version is added each time a source of the
         *     specification is processed successfully. Every member of the organization may list them; 404 when no
         *     specification has this slug.
         */
        get: operations["listOpenAPISpecVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}/versions/latest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the latest version of an OpenAPI specification
         * @description Answers the newest version of the specification (the one `lastVersion` names). 404 when no
         *     specification has this slug, or when none of its sources has been processed successfully yet.
         *     Every member of the organization may read it.
         */
        get: operations["getLatestOpenAPISpecVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the content of the latest version of an OpenAPI specification
         * @description Answers the parsed document of the newest version of the specification, with the URL where its raw
         *     source can be downloaded. 404 when no specification has this slug, or when it has no version yet.
         *     Every member of the organization may read it.
         */
        get: operations["getLatestOpenAPISpecVersionContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a version of an OpenAPI specification
         * @description Answers one version of the specification. 404 when no specification has this slug or it has no version with this id. Every member of the organization may read it.
         */
        get: operations["getOpenAPISpecVersionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the content of a version of an OpenAPI specification
         * @description Answers the parsed document of one version of the specification, with the URL where its raw source can
         *     be downloaded. 404 when no specification has this slug or it has no version with this id.
         *     Every member of the organization may read it.
         */
        get: operations["getOpenAPISpecVersionContentById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record that the caller is active
         * @description Sets the caller's `lastSeenAt` in the organization to now. Takes no body. The answer may carry
         *     `serviceVisitorClaims`, a signed JWT holding the claims to attach to the caller, which content with
         *     `visitor-auth` visibility accepts to admit them as an authenticated reader.
         *
         *     The caller must be a member of the organization.
         */
        post: operations["updateOrganizationMemberLastSeenAt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/saml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the SAML providers of an organization
         * @description Answers the SAML single sign-on providers configured for the organization, one page at a time.
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["listSAMLProvidersInOrganizationById"];
        put?: never;
        /**
         * Create a SAML provider
         * @description Adds a SAML single sign-on provider to the organization. Only `label` is required; the identity
         *     provider's `ssoURL`, `entityID` and `certificate` can be given now or later with an update, and the
         *     provider stays `pending` until it is fully configured. `defaultTeam` must be a team of the organization
         *     (400 otherwise); members joining through the provider are put in it and get `defaultRole` (`null`: guest).
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["createOrganizationSAMLProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/saml/{samlProviderId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a SAML provider
         * @description Answers a SAML single sign-on provider of the organization, with the service-provider values to enter
         *     in the identity provider.
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["getOrganizationSAMLProviderById"];
        put?: never;
        post?: never;
        /**
         * Delete a SAML provider
         * @description Removes the SAML provider; members can no longer sign in through it. Answers 204 also when the provider
         *     does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteOrganizationSAMLProvider"];
        options?: never;
        head?: never;
        /**
         * Update a SAML provider
         * @description Changes the given fields of the SAML provider and leaves the others as they are; at least one field is
         *     needed. The provider becomes `active` once `ssoURL`, `entityID` and `certificate` are all set.
         *     `defaultTeam` must be a team of the organization (400 otherwise).
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateOrganizationSAMLProvider"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the docs sites of an organization
         * @description Answers the docs sites of the organization, one page at a time, oldest first. The filters combine:
         *     `space` keeps the sites that publish this space, `title` the sites whose title contains the text (ignoring
         *     case), `published` the published (`true`) or unpublished (`false`) sites, and `type` the sites of one of
         *     the given types (repeat the key for several: `type=basic&type=premium`).
         *
         *     Any member of the organization may list its sites.
         */
        get: operations["listSites"];
        put?: never;
        /**
         * Create a docs site
         * @description Creates a docs site in the organization, unpublished. The body is optional: `type` defaults to `basic`,
         *     `visibility` to `public`, and a missing `title` gets a default title. `spaces` lists the ids of spaces of the
         *     organization to link to the site at once, in order; the first becomes its default site space. A space that
         *     does not exist or that the caller cannot see answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["createSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a docs site
         * @description Answers a docs site of the organization. Any member of the organization may read it; 404 when no site of
         *     the organization has this id.
         */
        get: operations["getSiteById"];
        put?: never;
        post?: never;
        /**
         * Delete a docs site
         * @description Deletes the site with its site spaces, sections, section groups, share links and adaptive schema; it goes
         *     offline at once. The linked spaces themselves are kept. Answers 204 also when the site does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteById"];
        options?: never;
        head?: never;
        /**
         * Update a docs site
         * @description Changes the given settings of the site and answers it; omitted fields keep their value, and the body must
         *     hold at least one field.
         *
         *     - `visibility` may move between any two of the four values.
         *     - `defaultSiteSpace` is the id of a site space of this site; it becomes the default at its level (the
         *       root of the site, or the default section). `defaultSiteSection` is the id of a section of this site; it
         *       becomes the default section. An id that is not part of the site answers 400.
         *     - `proxy` serves the site under a path of another domain (`example.com/docs`); `null` removes it.
         *     - `basename` is the site's address segment (`/sites/{basename}`): unique across the installation and never
         *       another site's id (409 otherwise).
         *     - `hostname` serves the site on its own hostname (at least three labels, lower case), unique across the
         *       installation (409 when another site has it); `null` removes it. Readers then reach the site at
         *       `https://<hostname>/`; see "Addresses" in apps/server/README.md.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/adaptive-schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the adaptive schema of a docs site
         * @description Answers the adaptive-content schema of the site: the visitor claims that conditions of its sections, site
         *     spaces and pages may test. 404 when the site does not exist or has no adaptive schema yet.
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["getSiteAdaptiveSchema"];
        /**
         * Replace the adaptive schema of a docs site
         * @description Stores `jsonSchema` as the adaptive-content schema of the site, replacing any previous one, and answers it
         *     with its new `updatedAt`. The schema must be a draft-07 JSON Schema of type `object` whose `properties`
         *     declare the signed claims (boolean, string, string with an `enum`, number, array of primitive values, or
         *     object of further claims, each with a `description`) and, under `unsigned`, the claims visitors may set
         *     without a signature; `additionalProperties` must be false at both levels. Anything else answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        put: operations["updateSiteAdaptiveSchema"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List condition templates of a docs site
         * @description Answers ready-made adaptive-content conditions, built from the claims of the site's adaptive schema, that
         *     editors can pick from when they set the condition of a section, a site space or a page. The list is short
         *     and not paginated; it is empty when the site has no adaptive schema.
         *
         *     Any member of the organization may read it.
         */
        get: operations["listSiteAdaptiveTemplateConditions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/customization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the customization of a docs site
         * @description Answers the complete customization of the site: what organization admins set with
         *     `updateSiteCustomizationById`, every other key at the service's default. This is also
         *     `customizations.site` of the published site.
         *
         *     Members of the organization read it.
         */
        get: operations["getSiteCustomizationById"];
        /**
         * Replace the customization of a docs site
         * @description Stores the body as the site's customization, replacing what was set before (a key left out goes back to
         *     the service's default), and answers the complete customization. Links must point at an address on the web
         *     or at a page, anchor, space or collection of the organization, and header link conditions must parse as
         *     site-space conditions do (and read only claims of the site's adaptive schema, when it has one); anything
         *     else answers 400 and changes nothing.
         *
         *     Needs the `admin` permission of the organization.
         */
        put: operations["updateSiteCustomizationById"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish a docs site
         * @description Puts the site online for the audience its `visibility` defines and answers it with `published` true and
         *     its published URL. Publishing a site that is already published changes nothing and answers it too. No
         *     request body.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["publishSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/published": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the published content of a docs site
         * @description Answers what readers of the site get: the site, its structure (its sections and section groups, or its
         *     site spaces when it has no sections), its customizations and the scripts loaded in its pages. With
         *     `shareKey`, the published URLs in the answer carry that share link's key, so that a `share-link` site can
         *     be opened with them. 404 when no site of the organization has this id.
         *
         *     Any member of the organization may read it.
         */
        get: operations["getPublishedContentSite"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/section-groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the section groups of a docs site
         * @description Answers the section groups of the site, one page at a time, in their order on the site, each with its
         *     sections.
         *
         *     Any member of the organization may list them.
         */
        get: operations["listSiteSectionGroups"];
        put?: never;
        /**
         * Create a section group
         * @description Creates a section group on the site, placed last at its level, and answers it. `sections` lists ids of
         *     sections of the site to move into the group, in order. `parent` is the id of a section group to nest the
         *     new group in; omitted, the group sits at the root of the site. A section or parent group that is not part
         *     of the site answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["addSectionGroupToSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a section group
         * @description Deletes the section group; its sections are kept and move to the level the group was at. Answers 204 also
         *     when the group does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteSectionGroupById"];
        options?: never;
        head?: never;
        /**
         * Update a section group
         * @description Changes the title or the icon of the section group and answers it; omitted fields keep their value, and an
         *     `icon` of null removes the icon. `parentSectionGroupId` (as in later releases of the public API) moves the
         *     group into another group of the site, placed last there, or to the root with null; a group cannot go into
         *     itself or one of its own descendants (400), so groups nest without cycles.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteSectionGroupById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a section to a section group
         * @description Moves a section of the site into the section group, after its current sections, and answers the group. A
         *     section that is already in the group stays where it is; a section that is not part of the site answers
         *     400.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["addSectionToGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a section from a section group
         * @description Takes the section out of the section group; the section is kept and moves to the level the group is at.
         *     Answers 204 also when the section was not part of the group, or does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["removeSectionFromGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/sections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the sections of a docs site
         * @description Answers the sections of the site, one page at a time, in their order on the site, each with its site
         *     spaces. Sections that sit in a section group are listed too, with the group's id in `sectionGroup`.
         *
         *     Any member of the organization may list them.
         */
        get: operations["listSiteSections"];
        put?: never;
        /**
         * Create a site section
         * @description Creates a section on the site, placed last at its level, holding the space `spaceId` as its first (and
         *     default) site space, and answers it. `title` defaults to the space's title; `siteSectionGroupId` puts the
         *     section in that section group, otherwise it sits at the root of the site. The first section of a site
         *     becomes its default section; when the site had site spaces outside any section, they move into this first
         *     section. A space or group that the caller cannot find in the organization or site answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["addSectionToSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a site section
         * @description Deletes the section with its site spaces (the spaces themselves are kept). When it was the default section,
         *     the next section of the site becomes the default. Answers 204 also when the section does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteSectionById"];
        options?: never;
        head?: never;
        /**
         * Update a site section
         * @description Changes the given fields of the section and answers it; omitted fields keep their value. `path` must be
         *     unique among the sections of the site. `condition` sets the adaptive-content expression deciding which
         *     visitors see the section, and `null` removes it. `siteSectionGroupId` moves the section into that group,
         *     placed last, and `null` moves it to the root of the site. `default` true makes it the default section of
         *     the site (false is accepted only on a section that is not the default).
         *
         *     A condition is an expression over `visitor.claims.<name>` and `visitor.claims.unsigned.<name>` with
         *     literals, `!`, `&&`, `||` and comparisons; one that does not parse, or (once the site has an adaptive
         *     schema) that reads a claim the schema does not declare, answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteSectionById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/share-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the share links of a docs site
         * @description Answers the share links of the site, active or not, one page at a time, oldest first. Their URLs hold
         *     secret keys, so listing them needs the `admin` permission of the organization.
         */
        get: operations["listSiteShareLinks"];
        put?: never;
        /**
         * Create a share link
         * @description Creates an active share link for the site, with a new random secret key, and answers it. The link opens
         *     the site only while the site's visibility is `share-link` and it is published.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["createSiteShareLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a share link
         * @description Deletes the share link; its key stops opening the site at once. Answers 204 also when the share link does
         *     not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteShareLinkById"];
        options?: never;
        head?: never;
        /**
         * Update a share link
         * @description Renames the share link, or turns it on or off, and answers it; omitted fields keep their value, and the
         *     body must hold at least one field. An inactive link keeps its key but no longer opens the site until it is
         *     made active again.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteShareLinkById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/site-spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the site spaces of a docs site
         * @description Answers the links between the site and the spaces it publishes, one page at a time, in their order on the
         *     site. `default` true keeps only the default site space, false only the others; omitted, all. With
         *     `shareKey`, the published URLs in the answer carry that share link's key.
         *
         *     Any member of the organization may list them.
         */
        get: operations["listSiteSpaces"];
        put?: never;
        /**
         * Add a space to a docs site
         * @description Links a space of the organization to the site and answers the new site space, placed last. `sectionId`
         *     puts it in that section of the site; omitted, it goes to the default section, or to the root of the site
         *     when the site has no sections. The first space of a level becomes its default. It gets a path derived from
         *     the space's title, unique at its level. A space or section the caller cannot find answers 400; a space
         *     already linked to the site answers 409.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["addSpaceToSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a space from a docs site
         * @description Removes the link between the site and the space; the space itself is kept. When it was the default site
         *     space, the next one at its level becomes the default. Answers 204 also when the site space does not exist.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteSpaceById"];
        options?: never;
        head?: never;
        /**
         * Update a site space
         * @description Changes the given fields of the site space and answers it; omitted fields keep their value. `path` must be
         *     unique among the site spaces of the same level. `condition` sets the adaptive-content expression that
         *     decides which visitors see the space, and `null` removes it. `spaceId` publishes another space of the
         *     organization at the same place, keeping the path and condition.
         *
         *     A condition is an expression over `visitor.claims.<name>` and `visitor.claims.unsigned.<name>` with
         *     literals, `!`, `&&`, `||` and comparisons; one that does not parse, or (once the site has an adaptive
         *     schema) that reads a claim the schema does not declare, answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteSpaceById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the customization of a site space
         * @description Answers the complete customization readers of this site space get: the site's customization with the site
         *     space's overrides applied, every other key at the service's default (as in `customizations.siteSpaces` of
         *     the published site).
         *
         *     Members of the organization read it, for the site spaces whose space they may see.
         */
        get: operations["getSiteSpaceCustomizationById"];
        put?: never;
        post?: never;
        /**
         * Remove the overrides of a site space
         * @description Removes every override of the site space, which then looks like its site. 204 also when it had none.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteSpaceCustomizationById"];
        options?: never;
        head?: never;
        /**
         * Override the customization of a site space
         * @description Changes the site space's overrides of the site's customization: each key given replaces the override of
         *     that key, null removes it, an absent key keeps it. Answers the site space's complete customization. The
         *     same checks as `updateSiteCustomizationById` apply (400, nothing changed).
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["overrideSiteSpaceCustomizationById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a site space
         * @deprecated
         * @description Deprecated: the public API replaces it with an operation that sorts the whole site structure
         *     (sortSiteStructure), which Quire does not offer yet.
         *
         *     Moves the site space among the site spaces of its level and answers it: just before
         *     `position.before`, or just after `position.after`, each pointing at another site space of the same level.
         *     With no position (or no body), it goes last. A pointed site space that is not a sibling answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["moveSiteSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/unpublish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unpublish a docs site
         * @description Takes the site offline and answers it with `published` false; its settings, site spaces, sections and
         *     share links are kept for a later publication. Unpublishing a site that is not published changes nothing and
         *     answers it too. No request body.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["unpublishSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/visitor-auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the visitor authentication of a docs site
         * @description Answers the site's visitor-authentication backend and signing key. 404 when the site does not exist or
         *     has none configured.
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["getSiteVisitorAuth"];
        /**
         * Configure the visitor authentication of a docs site
         * @description Sets the backend visitors of a `visitor-auth` site are sent to to sign in. The first call makes a 256-bit
         *     signing key (HS256), kept sealed; `rotateKey` makes a new one, after which JWTs signed with the old key
         *     are refused.
         *
         *     Needs the `admin` permission of the organization.
         */
        put: operations["updateSiteVisitorAuth"];
        post?: never;
        /**
         * Remove the visitor authentication of a docs site
         * @description Forgets the backend and the signing key; JWTs signed with it are refused from then on. Answers 204, also
         *     when none was configured.
         *
         *     Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteVisitorAuth"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the spaces of an organization
         * @description Lists the spaces of the organization that the caller can see, both at the top level and inside
         *     collections. Deleted spaces are left out. The caller must belong to the organization; otherwise the
         *     organization answers 404.
         */
        get: operations["listSpacesInOrganizationById"];
        put?: never;
        /**
         * Create a space
         * @description Creates a space in the organization, at the top level or, with `parent`, inside a collection of the
         *     same organization. Every field is optional, but the body must be a JSON object (`{}` is accepted).
         *     Unless the body says otherwise the new space has an empty title and no emoji, is `live`, inherits
         *     its merge rules and default level, and is `private` at the top level or `in-collection` inside a
         *     collection. It starts with a first revision, which `revision` names.
         *
         *     The caller needs the `createContent` permission of the organization (role `create` or above) for a space
         *     at the top level, or the `create` permission of the parent collection. An unknown or invisible parent
         *     collection answers 404.
         */
        post: operations["createSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the SSO logins of an organization
         * @description Answers the single sign-on entry points of the organization, one per `active` SAML provider, with the URL that
         *     starts a sign-in. The list is not paginated.
         */
        get: operations["listSSOProviderLoginsInOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the teams of an organization
         * @description Answers the teams of the organization, one page at a time. `owner` keeps only the teams that this member
         *     can manage (those where the member is an `owner`); `title` keeps only the teams whose title contains it,
         *     ignoring case.
         *
         *     Needs the `listTeams` permission of the organization.
         */
        get: operations["listTeamsInOrganizationById"];
        /**
         * Create a team
         * @description Creates a team in the organization. `members` lists the ids of the organization members to put in it,
         *     with the team role `member`; an id that is not a member of the organization answers 400.
         *
         *     Needs the `admin` permission of the organization.
         */
        put: operations["createOrganizationTeam"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/teams/{teamId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team
         * @description Answers a team of the organization.
         *
         *     Needs `view` in the team's `permissions`.
         */
        get: operations["getTeamInOrganizationById"];
        put?: never;
        post?: never;
        /**
         * Delete a team
         * @description Deletes the team and its memberships; the access that was granted to the team ends for its members.
         *     Answers 204 also when the team does not exist, to a member who sees the organization's team directory;
         *     a guest gets 404 for any team they cannot see, as with every other team operation.
         *
         *     Needs `admin` in the team's `permissions`.
         */
        delete: operations["removeTeamFromOrganizationById"];
        options?: never;
        head?: never;
        /**
         * Rename a team
         * @description Changes the title of the team.
         *
         *     Needs `admin` in the team's `permissions`.
         */
        patch: operations["updateTeamInOrganizationById"];
        trace?: never;
    };
    "/orgs/{organizationId}/teams/{teamId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the members of a team
         * @description Answers the members of the team, one page at a time, each as their organization membership with their
         *     role in the team.
         *
         *     Needs `view` in the team's `permissions`.
         */
        get: operations["listTeamMembersInOrganizationById"];
        /**
         * Update the members of a team
         * @description Changes several memberships of the team at once. `add` puts users in the team (role `member` unless
         *     `memberships` says otherwise), `remove` takes users out of it, and `memberships` sets the team role of
         *     users by id. Users are named by id or by e-mail address and must be members of the organization; an
         *     entry that matches none answers 400 and nothing is changed. A user listed in both `add` and `remove` is
         *     removed. Removing a user who is not in the team is not an error. Answers 204 with no body.
         *
         *     Needs `admin` in the team's `permissions`.
         */
        put: operations["updateMembersInOrganizationTeam"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/teams/{teamId}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Add a member to a team
         * @description Puts a member of the organization in the team, or changes their team role when already in it. The body
         *     is optional; without `role` a new team member gets the role `member` and an existing one keeps theirs.
         *     Answers 404 when the user is not a member of the organization. Answers 204 with no body.
         *
         *     Needs `admin` in the team's `permissions`.
         */
        put: operations["addMemberToOrganizationTeamById"];
        post?: never;
        /**
         * Remove a member from a team
         * @description Takes the user out of the team. Answers 204 also when the user was not in the team.
         *
         *     Needs `admin` in the team's `permissions`.
         */
        delete: operations["deleteMemberFromOrganizationTeamById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/translations-glossary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List glossary entries
         * @description Answers the entries of the organization's translation glossary, oldest first. Every member of the
         *     organization, guests included, may list them.
         */
        get: operations["listGlossaryEntries"];
        /**
         * Change glossary entries
         * @description Applies a batch of 1 to 1000 operations to the organization's glossary, in order: `insert` adds an
         *     entry, `update` replaces the translations of an entry, `delete` removes one (deleting an absent entry is
         *     not an error). Language codes must be BCP 47 language tags; they are stored in their canonical form
         *     (`pt-br` becomes `pt-BR`), and two codes of one entry that are the same tag are refused. The batch is all
         *     or nothing: when an operation is invalid, or an `update` names an entry the glossary does not have, the
         *     answer is 400 naming the operation (`body.operations[<index>]`) and nothing is changed.
         *
         *     The caller needs an organization role that may edit content (`edit` or higher). Answers 204 with no body.
         */
        put: operations["updateGlossaryEntries"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/translations-glossary/{glossaryEntryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a glossary entry
         * @description Answers one entry of the organization's translation glossary. Every member of the organization may read it. 404 when the glossary has no entry with this id.
         */
        get: operations["getGlossaryEntry"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a space
         * @description Answers one space, with the caller's `permissions` on it. A space the caller cannot see, such as one of
         *     another organization, answers 404 exactly like a missing one. A deleted space is still answered here, with
         *     `deletedAt` set, until it is removed for good 7 days after its deletion; apart from this read and
         *     `restoreSpace`, operations treat a deleted space as absent.
         *
         *     With `shareKey`, the key of a share link of a docs site the space is published in, the published URLs
         *     in `urls` are resolved for that share link.
         */
        get: operations["getSpaceById"];
        put?: never;
        post?: never;
        /**
         * Delete a space
         * @description Deletes the space: it leaves every list, keeps its content, and can be brought back with `restoreSpace`
         *     during 7 days, after which it is removed for good. Needs the `admin` permission of the space. Deleting a
         *     space that does not exist, or is already deleted, also answers 204.
         */
        delete: operations["deleteSpaceById"];
        options?: never;
        head?: never;
        /**
         * Update a space
         * @description Changes settings of the space; fields left out keep their value, and the body must hold at least one
         *     field. Setting `editMode` to `locked` refuses every edit of the space until it is set back to `live`.
         *     Needs the `admin` permission of the space. A deleted space answers 404 until it is restored.
         */
        patch: operations["updateSpaceById"];
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the change requests of a space
         * @description Lists the change requests of the space, most recently updated first. Only `open` ones are listed unless
         *     `status` asks for another status; the other filters narrow the list further and combine with each other.
         *     Needs read access to the space.
         */
        get: operations["listChangeRequestsForSpace"];
        put?: never;
        /**
         * Create a change request
         * @description Starts a change request on the space: a copy of its current main content, in which edits can be made and
         *     reviewed before they are merged. The new change request is `draft`, starts from the current revision of
         *     the main content (`revisionInitial`), and gets the next `number` of the space. The caller becomes its
         *     creator. Needs the `edit` permission of the space.
         */
        post: operations["createChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a change request
         * @description Answers one change request of the space, found by its id or by its number in the space. Needs read access to the space.
         */
        get: operations["getChangeRequestById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a change request
         * @description Changes the subject, description, status or linked issues cluster of a change request; fields left out keep their value, and
         *     the body must hold at least one field. `status` moves it between `draft`, `open` and `archived`, in
         *     any direction; `merged` cannot be set here (merge the change request instead). A merged change request
         *     can no longer be changed (409). Needs the `edit` permission of the space.
         */
        patch: operations["updateChangeRequestById"];
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the current revision of a change request
         * @description Answers the current revision of the content of the change request (its `revision`): its whole page tree
         *     (without page content), its files and reusable content, as `getCurrentRevision` does for the main
         *     content. Needs read access to the space.
         */
        get: operations["getRevisionOfChangeRequestById"];
        put?: never;
        /**
         * Edit the content of a change request
         * @description Applies a batch of 1 to 50 changes to the content of the change request: insert, update or delete pages
         *     and insert files. The changes apply in order, each seeing the result of the previous ones, and all or
         *     nothing: if any change is invalid (an unknown page, a slug already used among siblings, a move under the
         *     page itself...), the answer is 400 naming the change (for example `changes[3].page`) and nothing is
         *     changed. A valid batch makes exactly one new revision of type `edits`, which becomes the change
         *     request's `revision`.
         *
         *     Page content is given as Markdown (`document.markdown`) and replaces the whole content of the page; see
         *     `PageDocumentInput` for how links are resolved. A `ref` given to an inserted page or file lets later
         *     changes of the batch point at it (as `into`, as `page` of an update, or in `ref:<label>` links) and
         *     finds the created page again in the answer. Files are given inline in base64 or by URL, at most 1 MB each
         *     and 20 per change; the whole body must also stay under the request size limit (413).
         *
         *     Needs the `edit` permission of the space; a locked space refuses edits (403). A merged or archived
         *     change request refuses edits (409).
         */
        post: operations["updateChangeRequestContent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the files of a change request
         * @description Lists the files (images, attachments...) of the current content of the change request. Needs read access to the space.
         */
        get: operations["listFilesInChangeRequestById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file of a change request
         * @description Answers one file of the current content of the change request, with the URL to download it from. Needs read access to the space.
         */
        get: operations["getFileInChangeRequestById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the backlinks of a file of a change request
         * @description Lists the places that link to, or embed, this file as the content stands in the change request: its own
         *     pages and reusable content, and those of other spaces of the organization the caller can see. Needs read
         *     access to the space.
         */
        get: operations["listChangeRequestFileBacklinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a change request
         * @description Answers one page of the current content of the change request, as `getPageById` does for the main
         *     content, with its content: `format` `document` fills `document`; `markdown`, or no `format`, fills
         *     `markdown`. Needs read access to the space.
         */
        get: operations["getPageInChangeRequestById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the backlinks of a page of a change request
         * @description Lists the places that link to this page as the content stands in the change request: its own pages and
         *     reusable content, and those of other spaces of the organization the caller can see. Needs read access to
         *     the space.
         */
        get: operations["listChangeRequestPageBacklinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the links of a page of a change request
         * @description Lists the links found in one page of the current content of the change request, each with where it
         *     points and whether it works. `stats` counts every link of the page, and `stats.broken.changeRequest`
         *     the broken links the change request introduces. Needs read access to the space.
         */
        get: operations["listPageLinksInChangeRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the pages of a change request
         * @description Answers the page tree of the current content of the change request, top-level pages first, each holding
         *     its children, as `listPages` does for the main content. Page content is not included. Needs read access
         *     to the space.
         */
        get: operations["listPagesInChangeRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the links of a change request
         * @description Lists the links found in the current content of the change request (in every page and reusable content),
         *     each with where it points, where it is used and whether it works. `stats` counts every link, and
         *     `stats.broken.changeRequest` the broken links the change request introduces compared with the main
         *     content. Use `status` `broken` to find links whose target no longer exists. Needs read access to the space.
         */
        get: operations["listChangeRequestLinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/merge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Merge a change request
         * @description Merges the content of the change request into the main content of the space, combining it with whatever
         *     changed in the main content since the change request started or was last updated. When both sides
         *     changed the same pages in ways that cannot be combined, nothing is merged and the answer lists the
         *     conflicts (`result` `conflicts`); resolve them in the change request (for example after an update) and
         *     merge again. On success (`result` `merge`) the main content gets a new revision of type `merge`, and
         *     the change request becomes `merged` with `revisionMerged` set. Needs the `merge` permission of the
         *     space; a locked space refuses merges (403). A merged change request cannot be merged again (409). Takes
         *     no body.
         *
         *     The merge rules of the space (its own, or the organization's when it inherits) are checked first: when
         *     any is unmet and the caller is not listed by an `allow_bypass` rule, nothing changes and the answer is
         *     403 with a message naming every unmet rule (the change request's `mergeability` says the same before
         *     trying). The public API declares no error status for this; Quire answers 403 because the refusal is
         *     about who may merge now, like its other merge refusals.
         */
        post: operations["mergeChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a PDF of a change request
         * @description Makes a PDF of the content of the change request and answers the URL to download it from. By default
         *     the PDF holds every page. With `page`, it holds that page and its descendants; with `only` as well, just
         *     that page. `only` without `page` is refused (400), and a `page` absent from the change request answers
         *     404. Needs read access to the space.
         */
        get: operations["getChangeRequestPDF"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Update a change request from the main content
         * @description Pulls into the change request what changed in the main content of the space since it started or was
         *     last updated, keeping the change request's own edits on top. When both sides changed the same pages in
         *     ways that cannot be combined, nothing is pulled in and the answer lists the conflicts (`result`
         *     `conflicts`). On success (`result` `update`) the change request gets a new revision of type
         *     `update`, `revisionMergedAncestor` becomes the current main-content revision and `outdated` becomes
         *     false; a change request already up to date answers `update` with its current revision. Needs the
         *     `edit` permission of the space; a locked space refuses it (403). A merged change request cannot be
         *     updated (409). Takes no body.
         */
        post: operations["updateChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        /**
         * List the requested reviewers of a change request
         * @description Answers the members whose review of the change request was asked for, in the order they were asked.
         *     A reviewer stays listed after giving a review, until removed. Needs read access to the space.
         */
        get: operations["getRequestedReviewersByChangeRequestId"];
        put?: never;
        /**
         * Request reviews of a change request
         * @description Asks the listed users for a review of the change request. Each must be a member of the organization who
         *     can see the space (400 otherwise, naming the first that is not, and nobody is added); users already
         *     asked stay as they were. Needs the `edit` permission of the space. A merged or archived change request
         *     takes no new reviewers (409). Answers the ids of every requested reviewer of the change request.
         */
        post: operations["requestReviewersForChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a requested reviewer from a change request
         * @description No longer asks the user for a review of the change request. Reviews the user already gave stay. Needs
         *     the `edit` permission of the space; a user who was not asked answers 404.
         */
        delete: operations["removeRequestedReviewerFromChangeRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/reviews": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        /**
         * List the reviews of a change request
         * @description Answers every review of the change request, oldest first, outdated ones included (with `outdated`
         *     true). Needs read access to the space.
         */
        get: operations["getReviewsByChangeRequestId"];
        put?: never;
        /**
         * Review a change request
         * @description Gives the caller's review of the change request's current revision: `approved` or `changes-requested`,
         *     with an optional comment. A later review by the same member replaces the earlier one for the merge
         *     rules; both stay listed. Needs the `review` permission of the space. The creator of the change request
         *     cannot review it (403). Only `open` and `draft` change requests take reviews (409 for merged and
         *     archived ones).
         */
        post: operations["submitChangeRequestReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the review. */
                reviewId: components["parameters"]["reviewId"];
            };
            cookie?: never;
        };
        /**
         * Get a review of a change request
         * @description Answers one review of the change request; a review of another change request answers 404. Needs read access to the space.
         */
        get: operations["getChangeRequestReviewById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/commenters": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        /**
         * List the commenters of a space
         * @description Answers the members of the organization who posted comments or replies in the space, each once. The
         *     caller needs to be able to view the space.
         */
        get: operations["listCommentersInSpace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/comments": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        /**
         * List the comments of a space
         * @description Answers the comments of the space, including those posted on its change requests, newest first unless
         *     `order` says otherwise. Filters combine: `status` keeps open or resolved comments, `targetPage` keeps the
         *     comments attached to one page, and `authors` keeps the comments posted by any of the given users. The
         *     `format` parameter chooses the form of each comment's body. The caller needs to be able to view the space.
         */
        get: operations["listCommentsInSpace"];
        put?: never;
        /**
         * Post a comment in a space
         * @description Starts a discussion in the space and answers the new comment, `open`. Without `page`, the comment is on the
         *     space as a whole; with `page`, on that page; with `node` as well, on that block of the page; with
         *     `tableCell` as well, on that cell of the table block `node`. With `changeRequest`, the comment is posted
         *     on that change request (and `page` and `node` are looked up in its content); this field is Quire's way to
         *     comment on a change request, matching `target.changeRequest` of the comment. A page, block, cell or
         *     change request that does not exist in the space answers 400. The caller needs the `comment` role (or
         *     higher) on the space.
         */
        post: operations["postCommentInSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/comments/{commentId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        /**
         * Get a comment of a space
         * @description Answers one comment of the space, with its reactions and a summary of its replies. The `format` parameter
         *     chooses the form of its body. The caller needs to be able to view the space.
         */
        get: operations["getCommentInSpace"];
        /**
         * Update a comment of a space
         * @description Changes a comment and answers it. `resolved: true` resolves it (`status` becomes `resolved`, with
         *     `resolvedAt` and `resolvedBy` set to now and the caller) and `resolved: false` opens it again; setting the
         *     status it already has changes nothing. `body` replaces its content and sets `editedAt`; only the author
         *     may change it. `addedReactions` adds the caller's reaction with each emoji and `removedReactions` removes
         *     it; adding a reaction the caller already has, or removing one they do not have, changes nothing, and an
         *     emoji in both lists is removed. Resolving and reacting need the `comment` role (or higher) on the space.
         *     At least one field is required.
         */
        put: operations["updateCommentInSpace"];
        post?: never;
        /**
         * Delete a comment of a space
         * @description Deletes a comment and all its replies. Only the author of the comment or an admin of the space may delete
         *     it. A comment that does not exist (or was already deleted) also answers 204; a space the caller cannot
         *     see answers 404.
         */
        delete: operations["deleteCommentInSpace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/comments/{commentId}/replies": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        /**
         * List the replies to a comment
         * @description Answers the replies to a comment of the space, oldest first. The `format` parameter chooses the form of
         *     each reply's body. The caller needs to be able to view the space. This operation is an addition to the
         *     interface document, following the public API it describes.
         */
        get: operations["listCommentRepliesInSpace"];
        put?: never;
        /**
         * Reply to a comment
         * @description Adds a reply to the discussion of a comment and answers it. The comment's `replies` count and `repliers`
         *     are updated. The caller needs the `comment` role (or higher) on the space.
         */
        post: operations["postCommentReplyInSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        /**
         * Get a reply to a comment
         * @description Answers one reply to a comment of the space. The `format` parameter chooses the form of its body. The
         *     caller needs to be able to view the space.
         */
        get: operations["getCommentReplyInSpace"];
        /**
         * Update a reply to a comment
         * @description Changes a reply and answers it. `body` replaces its content and sets `editedAt`; only the author may
         *     change it. `addedReactions` adds the caller's reaction with each emoji and `removedReactions` removes it;
         *     adding a reaction the caller already has, or removing one they do not have, changes nothing, and an emoji
         *     in both lists is removed. Reacting needs the `comment` role (or higher) on the space. At least one field
         *     is required.
         */
        put: operations["updateCommentReplyInSpace"];
        post?: never;
        /**
         * Delete a reply to a comment
         * @description Deletes a reply; the comment's `replies` count and `repliers` are updated. Only the author of the reply or
         *     an admin of the space may delete it. A reply that does not exist (or was already deleted) also answers
         *     204; a space or comment the caller cannot see answers 404.
         */
        delete: operations["deleteCommentReplyInSpace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the current revision of a space
         * @description Answers the current revision of the main content of the space: its whole page tree (without page
         *     content), its files and reusable content. Use `metadata` false to leave out Git metadata and `computed`
         *     false to get computed pages as their definition. Needs read access to the space.
         */
        get: operations["getCurrentRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the files of a space
         * @description Lists the files (images, attachments...) of the current main content of the space. Needs read access to the space.
         */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file of a space
         * @description Answers one file of the current main content of the space, with the URL to download it from. Needs read access to the space.
         */
        get: operations["getFileById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/files/{fileId}/backlinks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the backlinks of a file of a space
         * @description Lists the places that link to, or embed, this file of the space: pages and reusable content of the
         *     current main content of this space and of other spaces of the organization the caller can see. Needs read
         *     access to the space.
         */
        get: operations["listSpaceFileBacklinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/page/{pageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a space
         * @description Answers one page of the current main content of the space, with its content: `format` `document`
         *     fills `document`; `markdown`, or no `format`, fills `markdown` (the public API's page always carries
         *     one of them). `evaluated` decides whether
         *     expressions in the content are evaluated first. Child pages are listed without their content. Needs read
         *     access to the space.
         */
        get: operations["getPageById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/page/{pageId}/backlinks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the backlinks of a page of a space
         * @description Lists the places that link to this page of the space: pages and reusable content of the current main
         *     content of this space and of other spaces of the organization the caller can see. Needs read access to
         *     the space.
         */
        get: operations["listSpacePageBacklinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/page/{pageId}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the links of a page of a space
         * @description Lists the links found in one page of the current main content of the space, each with where it points
         *     and whether it works; `stats` counts every link of the page, whatever the filter. Needs read access to
         *     the space.
         */
        get: operations["listPageLinksInSpace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/pages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the pages of a space
         * @description Answers the page tree of the current main content of the space, top-level pages first, each holding its
         *     children. Page content is not included; get a page to read it. Needs read access to the space.
         */
        get: operations["listPages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/template": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a template to a space
         * @description Adds the pages of a built-in template at the end of the top level of the space's main content, or of a
         *     change request when `changeRequestId` is given, as one new revision. The templates are:
         *     - `blank`: one empty page titled `Untitled`.
         *     - `openapi-reference`: an API reference built from the OpenAPI specification given as
         *       `params.contentRefs.spec`: a reference of kind `file` to a JSON or YAML OpenAPI (3.x) or Swagger (2.0)
         *       file of the content the template is applied to. It adds a computed page titled `API reference`
         *       (`computed.type` `builtin:openapi`, depending on that file) whose child pages, one per tag of the
         *       specification, list its operations: method, path, summary, parameters, request body and responses.
         *       A missing `spec`, a file that is not in the content or is not an OpenAPI specification is refused
         *       (400). References of kind `openapi` (a specification of the organization) are refused with 400 too:
         *       Quire does not manage organization specifications yet.
         *     - `getting-started`: a small starter tree, a `Welcome` page holding a `Quickstart` page, both with
         *       short example text.
         *
         *     Needs the `edit` permission of the space; a locked space refuses it (403). A change request that is
         *     merged or archived refuses it (409). Answers 201 with no body; read the content to see the new pages.
         */
        post: operations["applyTemplateToSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/duplicate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Duplicate a space
         * @description Creates a copy of the space next to it, in the same collection or at the top level of the same
         *     organization. The copy gets the settings of the original (title, emoji, visibility, language, edit mode,
         *     merge rules, default level) and a first revision holding the original's current main content; change
         *     requests, comments and the Git sync setup are not copied. No request body is read.
         *
         *     Needs the `view` permission of the space, and the `create` permission of its collection (or the
         *     `createContent` permission of the organization for a space at the top level).
         */
        post: operations["duplicateSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/git/export": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Export a space to a Git repository
         * @description Queues an export of the primary content of the space to a branch of a Git repository, as one commit with
         *     `commitMessage`, and answers 204 at once; the export runs in the background. Unless `standalone` is true,
         *     the space becomes linked to the repository. Progress and outcome are read with `getSpaceGitInfo`
         *     (`operation`, with the error of a failed export). Credentials embedded in `url` are used to push to the
         *     repository for this export only; they are never stored, logged nor answered.
         *
         *     `timestamp` orders the sync operations of a space: when an import or export with a later `timestamp`
         *     already ran on the space, the export is refused with 409. The caller needs the right to trigger Git sync on
         *     the space (`permissions.triggerGitSync` of the space).
         */
        post: operations["exportToGitRepository"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/git/import": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a Git repository into a space
         * @description Queues an import of a branch of a Git repository into the space and answers 204 at once; the import runs
         *     in the background. Unless `standalone` is true, the imported content becomes the primary content of the
         *     space. Progress and outcome are read with `getSpaceGitInfo` (`operation`, with the error of a failed
         *     import). Credentials embedded in `url` are used to clone the repository for this import only; they are
         *     never stored, logged nor answered.
         *
         *     `timestamp` orders the sync operations of a space: when an import or export with a later `timestamp`
         *     already ran on the space, the import is refused with 409. The caller needs the right to trigger Git sync on
         *     the space (`permissions.triggerGitSync` of the space).
         */
        post: operations["importGitRepository"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/git/info": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        /**
         * Get the Git sync state of a space
         * @description Answers how the space is synchronized with a Git repository and how its latest import or export went.
         *     The repository URL never contains credentials. A space that was never synchronized answers 404. The caller
         *     needs to be able to view the space.
         */
        get: operations["getSpaceGitInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/git/legacy-installation": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the legacy Git installation of a space
         * @description Unlinks the space from a Git sync installation of the legacy kind (`installationProvider`
         *     `github-legacy`), so that it can be set up again. The content of the space is kept. A space without such an
         *     installation (never had one, or already removed) also answers 204. The caller needs the right to trigger
         *     Git sync on the space (`permissions.triggerGitSync` of the space).
         */
        delete: operations["deleteLegacyGitInstallation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the links of a space
         * @description Lists the links found in the current main content of the space (in every page and reusable content):
         *     links to pages, files and other spaces, embeds and external URLs. Each item says where the link points,
         *     where it is used and whether it works; `stats` counts every link of the space, whatever the filter.
         *     Use `status` `broken` to find links whose target no longer exists. Needs read access to the space.
         */
        get: operations["listSpaceLinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a space
         * @description Moves the space within its organization: `parent` names the collection to move it into (`null` moves it
         *     to the top level; left out keeps the current parent), and `position` places it among its new siblings
         *     (last when left out). The body must hold at least one of the two fields, and a `position` pointer must
         *     name a sibling under the destination. A space with visibility `in-collection` that moves to the top
         *     level becomes `private`.
         *
         *     Needs the `admin` permission of the space and, when the parent changes, the `create` permission of the
         *     new parent collection (or `createContent` of the organization for the top level).
         *     Answers 400 when a `position` pointer is not a sibling under the destination, 404 when the new parent
         *     or a pointed sibling cannot be found, and 409 when the space is already where the request would put it.
         */
        post: operations["moveSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore a deleted space
         * @description Brings back a space deleted within the last 7 days, with its content, and answers it without
         *     `deletedAt`. It returns to the collection it was in, or to the top level of the organization when that
         *     collection no longer exists. No request body is read. Needs the `admin` permission of the space.
         *
         *     Answers 404 when the space does not exist or was removed for good (more than 7 days after its deletion),
         *     and 409 when the space is not deleted.
         */
        post: operations["restoreSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the content of a space
         * @description Searches the titles and text of the pages of the current main content of the space and answers the
         *     matching pages, best match first, each with the sections (parts under a heading) that match. Needs read
         *     access to the space.
         */
        get: operations["searchSpaceContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer a space to another organization or collection
         * @description Moves the space to another organization, to a collection, or both. `organization` names the target
         *     organization (it may be the current one); `collection`, when given, names a collection of that target
         *     organization to put the space in; without it the space goes to the top level of the target
         *     organization. A space with visibility `in-collection` that ends at the top level becomes `private`.
         *
         *     Needs the `admin` permission of the space, and the `create` permission of the target collection (or
         *     the `createContent` permission of the target organization when no collection is given).
         *     Answers 404 when the space, the target organization or the target collection cannot be found (an
         *     organization the caller does not belong to, or a collection of another organization, counts as absent),
         *     409 when the space is already where the request would put it, and 412 when the space cannot leave its
         *     organization in its current state, for example because it is linked to a docs site of that organization.
         */
        post: operations["transferSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/urls/published": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Resolve the address of a published docs site
         * @description Resolves an address a reader opened to the published content it shows, as the site presenter builds
         *     addresses: `{QUIRE_PUBLIC_URL}/sites/{basename or id}[/{section path}][/{site-space path}]/{page path}`,
         *     or `{scheme}://{hostname}/...` for a site with a `hostname`. The default section and the default site space
         *     apply when the path names none. Needs no bearer token: this is what a reader (or the reader app) calls
         *     for a visitor, and it holds no more rights than that visitor.
         *
         *     A bearer token is optional. When it is a user's token (an API token, or the session that signing in through
         *     SAML starts) of a member of the site's organization (not disabled, not a guest; a session started in
         *     another organization does not count), a published site opens to them whatever its visibility: a
         *     `share-link` site without a key, a `visitor-auth` site without a JWT. Conditions are still evaluated with
         *     the claims given, so a member sees what a visitor with the same claims sees. The `apiToken` issued then
         *     names that member and their token: removing the member, disabling them, or revoking or expiring the token
         *     closes it at once. Anyone else's token changes nothing (the same 404 or redirect as without one); a token
         *     that is unknown, revoked or expired is a 401.
         *
         *     Answers either a lookup (`published-content-lookup`) with a short-lived `apiToken` (15 minutes), a
         *     visitor token accepted only by the reads of this site's published content (the published site, and the
         *     spaces, revisions, pages, files and search of the site spaces this visitor sees), or a redirect
         *     (`published-content-redirect`) to the site's visitor-authentication backend when a `visitor-auth` site is
         *     asked without a valid JWT and a backend is configured (401 when none is).
         *
         *     A `share-link` site needs the key of an active share link, as `shareKey` or as a `?shareKey=` inside
         *     `url`. Unsigned visitor claims are read from `visitor.<name>` query parameters of `url`; signed ones come
         *     from the verified `visitorAuthToken`. Site spaces whose `condition` is false for these claims are
         *     invisible to this visitor. 404, the same for every case, when no published site is at that address, the
         *     site is not published, or a share-link site is asked without an active link's key.
         */
        get: operations["getPublishedContentByUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the caller
         * @description Answers the user who owns the bearer token of the request.
         */
        get: operations["getAuthenticatedUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        /**
         * List the roles granted on a space
         * @description Answers the roles granted directly on the space to users and to teams (not those inherited from
         *     collections above it). Needs the `admin` permission of the space.
         */
        get: operations["listPermissionsInSpace"];
        put?: never;
        /**
         * Grant a role on a space to users or teams
         * @description Grants `role` on the space to each listed user (members or guests of the organization) or each listed
         *     team of the organization; a user or team that already has a grant here gets the new role. Anything not
         *     of the organization answers 400 naming it, and nothing is granted. Needs the `admin` permission of the
         *     space.
         */
        post: operations["inviteToSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/permissions/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the role granted on a space to a user
         * @description Removes the user's grant on the space, at once; a user without a grant here answers 404. Needs the
         *     `admin` permission of the space.
         */
        delete: operations["removeUserPermissionInSpace"];
        options?: never;
        head?: never;
        /**
         * Change the role granted on a space to a user
         * @description Changes the role granted on the space to the user; `null` removes the grant. A user without a grant
         *     here answers 404. Takes effect at once. Needs the `admin` permission of the space.
         */
        patch: operations["updateUserPermissionInSpace"];
        trace?: never;
    };
    "/spaces/{spaceId}/permissions/teams/{teamId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the role granted on a space to a team
         * @description Removes the team's grant on the space, at once; a team without a grant here answers 404. Needs the
         *     `admin` permission of the space.
         */
        delete: operations["removeTeamPermissionInSpace"];
        options?: never;
        head?: never;
        /**
         * Change the role granted on a space to a team
         * @description Changes the role granted on the space to the team; `null` removes the grant. A team without a grant
         *     here answers 404. Takes effect at once. Needs the `admin` permission of the space.
         */
        patch: operations["updateTeamPermissionInSpace"];
        trace?: never;
    };
    "/collections/{collectionId}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        /**
         * List the roles granted on a collection
         * @description Answers the roles granted directly on the collection to users and to teams (not those inherited from
         *     collections above it). Needs the `admin` permission of the collection.
         */
        get: operations["listPermissionsInCollection"];
        put?: never;
        /**
         * Grant a role on a collection to users or teams
         * @description Grants `role` on the collection to each listed user (members or guests of the organization) or each listed
         *     team of the organization; a user or team that already has a grant here gets the new role. Anything not
         *     of the organization answers 400 naming it, and nothing is granted. Needs the `admin` permission of the
         *     collection.
         */
        post: operations["inviteToCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/permissions/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the role granted on a collection to a user
         * @description Removes the user's grant on the collection, at once; a user without a grant here answers 404. Needs the
         *     `admin` permission of the collection.
         */
        delete: operations["removeUserPermissionInCollection"];
        options?: never;
        head?: never;
        /**
         * Change the role granted on a collection to a user
         * @description Changes the role granted on the collection to the user; `null` removes the grant. A user without a grant
         *     here answers 404. Takes effect at once. Needs the `admin` permission of the collection.
         */
        patch: operations["updateUserPermissionInCollection"];
        trace?: never;
    };
    "/collections/{collectionId}/permissions/teams/{teamId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the role granted on a collection to a team
         * @description Removes the team's grant on the collection, at once; a team without a grant here answers 404. Needs the
         *     `admin` permission of the collection.
         */
        delete: operations["removeTeamPermissionInCollection"];
        options?: never;
        head?: never;
        /**
         * Change the role granted on a collection to a team
         * @description Changes the role granted on the collection to the team; `null` removes the grant. A team without a grant
         *     here answers 404. Takes effect at once. Needs the `admin` permission of the collection.
         */
        patch: operations["updateTeamPermissionInCollection"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A subdomain reserved for an organization. */
        Subdomain: {
            /** @constant */
            readonly object: "subdomain";
            /** @description The subdomain label; lowercase letters, digits and inner hyphens. */
            subdomain: string;
            /** @description What the subdomain points at. */
            target: {
                /** @constant */
                type: "organization";
                /** @description Id of the organization. */
                organization: string;
            };
            /** @description True when the subdomain is in use. */
            readonly isActive: boolean;
        };
        /** @description The body of every error answer. `code` repeats the HTTP status; `message` says what went wrong in words a person can act on. */
        Error: {
            error: {
                /**
                 * Format: int32
                 * @description The HTTP status code of the answer.
                 * @example 404
                 */
                code: number;
                /**
                 * @description What went wrong. Never contains stack traces, SQL or secrets.
                 * @example No space matches this id.
                 */
                message: string;
            };
        };
        /**
         * @description A role in an organization, collection or space, from most to least powerful:
         *     `admin` administrates content and creates and deletes spaces, `create` creates content, `review` reviews
         *     content, `edit` edits live content or change requests, `comment` reads content and takes part in
         *     discussions, `read` only reads.
         * @enum {string}
         */
        MemberRole: "admin" | "create" | "review" | "edit" | "comment" | "read";
        /**
         * @description The role every member of the organization has on this content unless granted more. `inherit` takes the
         *     level of the parent (collection, then organization); `null` grants nothing by default.
         */
        DefaultLevel: components["schemas"]["MemberRole"] | "inherit" | null;
        /** @description A collection groups spaces, and other collections, inside an organization. */
        Collection: {
            /** @constant */
            readonly object: "collection";
            /** @description Opaque identifier of the collection. */
            readonly id: string;
            /** @description Title of the collection. */
            title: string;
            /** @description Short description of the collection; absent when it has none. */
            description?: string;
            /** @description Id of the organization that owns the collection. */
            readonly organization: string;
            /** @description Id of the collection that holds this one; absent when it sits at the top of the organization. */
            readonly parent?: string;
            defaultLevel: components["schemas"]["DefaultLevel"];
            /** @description Links to the collection. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the collection.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the collection in the Quire web application.
                 */
                app: string;
            };
            /** @description What the caller may do with the collection. */
            readonly permissions: {
                /** @description See the collection and list what it holds. */
                view: boolean;
                /** @description Manage the collection (title, description, default level, moving, transferring and deleting it). */
                admin: boolean;
                /** @description See the invite links of the collection. */
                viewInviteLinks: boolean;
                /** @description Create spaces and collections inside the collection. */
                create: boolean;
            };
        };
        /** @description Points at a space or a collection, as one side of a move position. */
        ContentPointer: {
            /** @constant */
            type: "space";
            /** @description Id of a space. */
            space: string;
        } | {
            /** @constant */
            type: "collection";
            /** @description Id of a collection. */
            collection: string;
        };
        /**
         * @description Where to place an item among its siblings: just before `before`, or just after `after`. With neither, the
         *     item goes last. The pointed item must be a sibling under the same parent.
         */
        ContentPosition: {
            before?: components["schemas"]["ContentPointer"];
            after?: components["schemas"]["ContentPointer"];
        };
        /** @description Where the following page of a list starts. Absent on the last page. */
        ListNext: {
            /** @description Opaque cursor; pass it back as the `page` query parameter to fetch the following page. */
            page: string;
        };
        /**
         * @description Who can read the content of a space:
         *     `public` anyone, and search engines index it; `unlisted` anyone who has the URL, not indexed;
         *     `share-link` anyone whose URL carries the secret key of a share link; `visitor-auth` readers who sign in
         *     through a JWT issued by the visitor authentication backend; `in-collection` anyone who can reach the
         *     parent collection (only for a space that is in a collection); `private` only members given access.
         * @enum {string}
         */
        SpaceVisibility: "public" | "unlisted" | "share-link" | "visitor-auth" | "in-collection" | "private";
        /**
         * @description How the content of a space may be changed: `live` lets people with the edit role change the main
         *     content directly; `locked` refuses every edit until the space is set back to `live`.
         * @enum {string}
         */
        SpaceEditMode: "live" | "locked";
        /**
         * @description One condition a change request must meet before it can be merged. The kind is named by `rule`:
         *     - `require_specific_reviewers`: every listed user has approved the change request;
         *     - `require_one_of_specific_reviewers`: at least one of the listed users has approved it;
         *     - `allow_bypass`: the listed users may merge even when other rules fail;
         *     - `require_at_least_one_review`: someone other than the author has reviewed it;
         *     - `require_at_least_one_approved_review`: at least one review approves it;
         *     - `require_all_reviews_approved`: no review asks for changes;
         *     - `require_agent_review`: an automated review agent has reviewed it;
         *     - `require_up_to_date_change_request`: it already contains the latest main content (no pending update);
         *     - `require_change_request_subject`: it has a non-empty subject;
         *     - `require_change_request_description`: it has a non-empty description;
         *     - `require_author_to_merge`: only its author may merge it;
         *     - `custom`: the `expression` evaluates to true.
         */
        MergeRule: {
            /**
             * @description Kind of rule.
             * @enum {string}
             */
            rule: "require_specific_reviewers" | "require_one_of_specific_reviewers" | "allow_bypass";
            /** @description Ids of the users the rule names. */
            users: string[];
        } | {
            /**
             * @description Kind of rule.
             * @enum {string}
             */
            rule: "require_at_least_one_review" | "require_at_least_one_approved_review" | "require_all_reviews_approved" | "require_agent_review" | "require_up_to_date_change_request" | "require_change_request_subject" | "require_change_request_description" | "require_author_to_merge";
        } | {
            /**
             * @description Kind of rule.
             * @constant
             */
            rule: "custom";
            /** @description Condition written in the expression syntax; the change request can be merged when it is true. */
            expression: string;
        };
        /**
         * @description The merge rules of a space: `inherit` applies the rules of the organization; `rules` applies the listed
         *     rules, all of which must pass before a change request is merged; `none` lets any change request be merged
         *     without review.
         */
        MergeRules: {
            /**
             * @description Use the merge rules of the organization.
             * @constant
             */
            type: "inherit";
        } | {
            /**
             * @description Use the rules listed in `rules`.
             * @constant
             */
            type: "rules";
            /** @description Rules that must all pass. */
            rules: components["schemas"]["MergeRule"][];
        } | {
            /**
             * @description No rule; change requests can be merged without review.
             * @constant
             */
            type: "none";
        };
        /**
         * @description Language code of the content of a space (a lower-case ISO 639-1 code, with a region or script suffix for
         *     `pt-br` and `zh-tw`; `yue` is Cantonese).
         * @enum {string}
         */
        SpaceLanguage: "en" | "fr" | "de" | "es" | "it" | "pt" | "pt-br" | "ru" | "ja" | "zh" | "zh-tw" | "yue" | "ko" | "ar" | "hi" | "nl" | "pl" | "tr" | "sv" | "no" | "da" | "fi" | "el" | "cs" | "hu" | "ro" | "th" | "vi" | "id" | "ms" | "he" | "uk" | "sk" | "bg" | "hr" | "lt" | "lv" | "et" | "sl";
        /**
         * @description How a space is synchronized with a Git repository, and how its latest import or export went. Every field is
         *     absent until it is known. `operation` is one of Quire's own fields, following the public API, so that the
         *     outcome of a queued import or export (and the error of a failed one) can be read back.
         */
        GitSyncState: {
            /** @description Name of the repository, for example `owner/docs`. */
            readonly repoName?: string;
            /**
             * @description The Git provider the space is synchronized through.
             * @enum {string}
             */
            readonly installationProvider?: "github" | "gitlab" | "github-legacy";
            /** @description Name of the integration that runs the synchronization. */
            readonly integration?: string;
            /**
             * Format: uri
             * @description URL of the repository, always without credentials, even when they were sent embedded in it.
             */
            readonly url?: string;
            /**
             * Format: date-time
             * @description When the synchronization settings or state last changed.
             */
            readonly updatedAt?: string;
            /** @description The latest import or export run on the space. */
            readonly operation?: {
                /**
                 * @description Where the operation stands; `failure` and `timeout` are final, like `success`.
                 * @enum {string}
                 */
                state: "running" | "failure" | "success" | "timeout";
                /**
                 * @description Whether the repository is imported into the space or the space exported to it.
                 * @enum {string}
                 */
                direction: "import" | "export";
                /**
                 * Format: date-time
                 * @description When the operation started.
                 */
                startedAt: string;
                /**
                 * Format: date-time
                 * @description When the operation ended; absent while it runs.
                 */
                endedAt?: string;
                /** @description Why the operation failed; present only when `state` is `failure` or `timeout`. Never contains credentials. */
                error?: string;
            };
        };
        /**
         * @description A space: one body of documentation (pages and files, with their revisions) in an organization, possibly
         *     inside a collection.
         */
        Space: {
            /** @constant */
            readonly object: "space";
            /** @description Opaque identifier of the space. */
            readonly id: string;
            /** @description Title of the space. */
            title: string;
            /** @description Emoji shown with the space; an empty string when it has none. */
            emoji: string;
            visibility: components["schemas"]["SpaceVisibility"];
            /**
             * Format: date-time
             * @description When the space was created.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the space or its main content last changed.
             */
            readonly updatedAt: string;
            /**
             * Format: date-time
             * @description When the space was deleted; present only on a deleted space, which can be restored for 7 days after this date.
             */
            readonly deletedAt?: string;
            editMode?: components["schemas"]["SpaceEditMode"];
            mergeRules: components["schemas"]["MergeRules"];
            /** @description Links to the space. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the space.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the space in the Quire web application.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description URL where the space is published; present only when its visibility is not `private`.
                 */
                published?: string;
                /**
                 * Format: uri
                 * @description Public URL of the space; present only when its visibility is `public`.
                 */
                public?: string;
                /**
                 * Format: uri
                 * @description URL of the icon of the space, when it has one.
                 */
                icon?: string;
            };
            /** @description Id of the organization that owns the space. */
            readonly organization: string;
            /** @description Id of the collection that holds the space; absent when the space sits at the top of the organization. */
            readonly parent?: string;
            language?: components["schemas"]["SpaceLanguage"];
            gitSync?: components["schemas"]["GitSyncState"];
            /** @description The backend that signs in readers when the visibility is `visitor-auth`. */
            readonly visitorAuth?: {
                /**
                 * @description Readers sign in through a backend the organization runs itself.
                 * @constant
                 */
                backend: "custom";
            } | {
                /**
                 * @description Readers sign in through an installed integration.
                 * @constant
                 */
                backend: "integration";
                /** @description Name of the integration that signs readers in. */
                integration: string;
            };
            /** @description Id of the revision that is the current main content of the space. */
            readonly revision: string;
            defaultLevel: components["schemas"]["DefaultLevel"];
            /** @description Number of open comments on the space. */
            readonly comments: number;
            /** @description Number of change requests of the space, whatever their status. */
            readonly changeRequests: number;
            /** @description Number of open change requests of the space. */
            readonly changeRequestsOpen: number;
            /** @description Number of draft change requests of the space. */
            readonly changeRequestsDraft: number;
            /** @description What the caller may do with the space. */
            readonly permissions: {
                /** @description Read the content of the space. */
                view: boolean;
                /** @description Open the space in the Quire web application. */
                access: boolean;
                /** @description Manage the space (settings, visibility, moving, transferring and deleting it). */
                admin: boolean;
                /** @description See the invite links of the space. */
                viewInviteLinks: boolean;
                /** @description Edit the content, through change requests or directly when the space is live. */
                edit: boolean;
                /** @description Start a Git import or export. */
                triggerGitSync: boolean;
                /** @description Post comments and replies. */
                comment: boolean;
                /** @description Merge change requests. */
                merge: boolean;
                /** @description Review change requests. */
                review: boolean;
                /** @description Install integrations on the space. */
                installIntegration: boolean;
            };
        };
        /** @description One page of a list of spaces. */
        SpaceList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            /** @description The spaces on this page. */
            items: components["schemas"]["Space"][];
        };
        /**
         * @description A category under which an integration is listed.
         * @enum {string}
         */
        IntegrationCategory: "analytics" | "collaboration" | "content" | "gitsync" | "marketing" | "visitor-auth" | "other";
        /**
         * @description A right that an integration asks for when it is installed:
         *     `space:content:read` / `space:content:write` (read / change the content of spaces),
         *     `space:metadata:read` / `space:metadata:write` (read / change the settings of spaces),
         *     `space:git:sync` (synchronize spaces with Git),
         *     `page:feedback:read` (read the feedback of readers on pages),
         *     `site:metadata:read` (read the settings of sites),
         *     `site:views:read` (read the page views of sites),
         *     `site:script:inject` (inject a script in published sites),
         *     `site:script:cookies` (let that script set cookies),
         *     `site:visitor:auth` (authenticate the visitors of sites),
         *     `site:adaptive:read` / `site:adaptive:write` (read / change the adaptive-content schema of sites),
         *     `openapi:read` / `openapi:write` (read / change OpenAPI specifications),
         *     `conversations:ingest` (ingest support conversations).
         * @enum {string}
         */
        IntegrationScope: "space:content:read" | "space:content:write" | "space:metadata:read" | "space:metadata:write" | "space:git:sync" | "page:feedback:read" | "site:metadata:read" | "site:views:read" | "site:script:inject" | "site:script:cookies" | "site:visitor:auth" | "site:adaptive:read" | "site:adaptive:write" | "openapi:read" | "openapi:write" | "conversations:ingest";
        /**
         * @description Where an integration can be installed - `all` (anywhere), `organization` (on a whole organization), `space` (on spaces), `site` (on docs sites).
         * @enum {string}
         */
        IntegrationTarget: "all" | "site" | "space" | "organization";
        /**
         * @description Who can find and install an integration - `public` (everyone; listed), `unlisted` (everyone who knows its name; not listed), `private` (only the members of the organization that owns it).
         * @enum {string}
         */
        IntegrationVisibility: "public" | "private" | "unlisted";
        /** @description A custom content block that an integration provides to the editor. */
        IntegrationBlock: {
            /** @description Identifier of the block, unique within the integration. */
            id: string;
            /** @description Name of the block shown in the editor. */
            title: string;
            /** @description What the block shows or does. */
            description?: string;
            /** @description URL of the icon of the block. */
            icon?: string;
            /** @description URL patterns whose links pasted in the editor are turned into this block (their host names are what the `blockDomain` filter of the integration list matches). */
            urlUnfurl?: string[];
            /** @description How the block is written in markdown, as a fenced code block. */
            markdown?: {
                /** @description Language tag of the fenced code block that stands for this block. */
                codeblock: string;
                /** @description Property of the block that holds the body of the code block. */
                body: string;
            };
        };
        /** @description A source of computed content (pages generated from outside data) that an integration provides. */
        IntegrationContentSource: {
            /** @description Identifier of the content source, unique within the integration. */
            id: string;
            /** @description Name of the content source shown in the app. */
            title: string;
            /** @description What content the source generates. */
            description?: string;
            /** @description URL of the icon of the content source. */
            icon?: string;
            /** @description The UI component that configures the content source. */
            configuration: {
                /** @description Id of the integration's UI component that renders the configuration form. */
                componentId: string;
            };
        };
        /**
         * @description How an installation of an integration is configured at one level (account, space or site): either a form
         *     described field by field, or a UI component of the integration that renders its own form.
         */
        IntegrationConfigurationSchema: {
            /** @description The fields of the form, by name (at most 100). */
            properties: {
                [key: string]: {
                    /**
                     * @description Type of the value the field holds.
                     * @enum {string}
                     */
                    type: "string" | "number" | "boolean";
                    /** @description Label of the field. */
                    title?: string;
                    /** @description Help text of the field. */
                    description?: string;
                    /** @description Value of the field when nothing is entered. */
                    default?: string | number | boolean;
                    /** @description Address the app calls to get the choices offered for the field. */
                    completion_url?: string;
                    /** @description The only values the field accepts. */
                    enum?: string[];
                } | {
                    /**
                     * @description A button, for example to connect an outside account.
                     * @constant
                     */
                    type: "button";
                    /** @description Label of the field. */
                    title?: string;
                    /** @description Help text of the field. */
                    description?: string;
                    /** @description Address opened when the button is pressed. */
                    callback_url: string;
                    /** @description Text of the button. */
                    button_text: string;
                };
            };
            /** @description Names of the fields that must be filled in. */
            required?: string[];
        } | {
            /** @description Id of the integration's UI component that renders the configuration form. */
            componentId: string;
        };
        /** @description A member's role, or `null` for a guest, who has no organization-wide role. */
        MemberRoleOrGuest: components["schemas"]["MemberRole"] | null;
        /**
         * @description An organization: the owner of members, teams, collections, spaces, docs sites and the other resources of
         *     this API. Billing-related fields (`plan`, `billing`, `trial`, `internal_billingMigration`) follow the public
         *     API the interface document describes. A self-hosted Quire has no billing: `plan` and `trial`, which the
         *     public API requires, say so (every feature is available, `enterprise_2024`, and no trial can be started,
         *     `notapplicable`); `billing` and `internal_billingMigration` are left out.
         */
        Organization: {
            /** @constant */
            readonly object: "organization";
            /** @description Opaque identifier of the organization. */
            readonly id: string;
            /** @description Name of the organization. */
            title: string;
            /**
             * Format: date-time
             * @description When the organization was created.
             */
            readonly createdAt: string;
            /** @description E-mail domains whose users may join the organization; empty when none is set. */
            emailDomains: string[];
            /** @description Default host name of the organization's published content. */
            hostname?: string;
            /**
             * @description Kind of organization.
             * @enum {string}
             */
            type: "business" | "community";
            /**
             * @description What the organization said it uses the service for.
             * @enum {string}
             */
            useCase?: "internalDocs" | "docsSite" | "audienceControlledSite" | "productDocs" | "teamKnowledgeBase" | "designSystem" | "openSourceDocs" | "notes" | "other";
            /**
             * @description Kind of community, for an organization of type `community`.
             * @enum {string}
             */
            communityType?: "nonProfit" | "openSource" | "education";
            defaultRole?: components["schemas"]["MemberRoleOrGuest"];
            /** @description The content shown by default for the organization. */
            defaultContent?: {
                /**
                 * @description The default content is a docs site.
                 * @constant
                 */
                type: "site";
                /** @description Id of the docs site. */
                site: string;
            };
            /** @description Whether every member must sign in through the organization's single sign-on. */
            sso?: boolean;
            /** @description Whether the AI features are turned on for the organization. */
            ai?: boolean;
            /** @description Whether invite links are turned on for the organization. */
            inviteLinks: boolean;
            /**
             * @description Billing plan of the organization.
             * @enum {string}
             */
            readonly plan: "free_2024" | "plus_2024" | "pro_2024" | "enterprise_2024" | "community_2024" | "free" | "plus" | "pro" | "internal";
            /** @description Billing details; only shown to members of the organization. */
            readonly billing?: {
                /**
                 * @description How often the subscription is billed.
                 * @enum {string}
                 */
                interval: "monthly" | "yearly";
                /**
                 * Format: date-time
                 * @description When the current billing period ends, or `null` when it does not end.
                 */
                endDate: string | null;
                /** @description Whether the last payment could not be collected. */
                hasPaymentFailed: boolean;
                /** @description Whether the subscription ends at the close of the current period. */
                isScheduledToCancel: boolean;
                /** @description Prices that apply to the organization. */
                pricing: {
                    /** @description Price per member, by plan name. */
                    members: {
                        [key: string]: {
                            /** @description Price when billed monthly. */
                            monthly: number;
                            /** @description Price per month when billed yearly. */
                            yearly: number;
                        };
                    };
                    /** @description Price per docs site, by site plan name. */
                    sites: {
                        [key: string]: {
                            /** @description Price when billed monthly. */
                            monthly: number;
                            /** @description Price per month when billed yearly. */
                            yearly: number;
                        };
                    };
                };
                /** @description Usage-based add-ons, by name. */
                usageAddons: {
                    [key: string]: {
                        /** @description Whether the add-on is turned on. */
                        enabled: boolean;
                    };
                };
            };
            /**
             * @description Merge rules of the organization, which spaces set to `inherit` apply: `rules` lists rules that must all
             *     pass before a change request is merged; `none` lets change requests be merged without review.
             */
            mergeRules: {
                /**
                 * @description Use the rules listed in `rules`.
                 * @constant
                 */
                type: "rules";
                /** @description Rules that must all pass. */
                rules: components["schemas"]["MergeRule"][];
            } | {
                /**
                 * @description No rule; change requests can be merged without review.
                 * @constant
                 */
                type: "none";
            };
            /** @description Links to the organization. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the organization.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the organization in the Quire web application.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description URL of the logo of the organization, when it has one.
                 */
                logo?: string;
            };
            /** @description State of the organization's trial of a paid plan. */
            readonly trial: {
                /**
                 * @description `notapplicable` no trial can be started; `none` no trial started yet; `active` a trial is running;
                 *     `ended` the trial is over and a plan was chosen; `expired` the trial is over and no choice was made.
                 * @enum {string}
                 */
                status: "notapplicable" | "none" | "active" | "ended" | "expired";
                /** @description Number of trials the organization has used. */
                count: number;
                /**
                 * Format: date-time
                 * @description When the current or last trial ends or ended.
                 */
                endDate?: string;
                /**
                 * @description What was chosen at the end of the trial.
                 * @enum {string}
                 */
                decision?: "downgrade";
            };
            /** @description Custom host name linked to the organization. */
            customHostname?: string;
            /** @description Present only when the organization is blocked; says why. */
            readonly blocked?: {
                /**
                 * @description Who or what blocked the organization.
                 * @enum {string}
                 */
                source?: "backoffice" | "external" | "internal";
                /** @description Short explanation of the block. */
                reason: string;
            };
            /** @description Details of a move of the organization to new pricing. */
            readonly internal_billingMigration?: {
                /**
                 * Format: date-time
                 * @description When the organization moves to the new pricing if it has not done so before.
                 */
                deadline?: string;
                /** @description Discount granted for moving early, in percent. */
                discountPercent?: number;
                /**
                 * Format: date-time
                 * @description When that discount ends.
                 */
                discountEndDate?: string;
            };
            /** @description What the caller may do in the organization. */
            readonly permissions: {
                /** @description See the organization. */
                view: boolean;
                /** @description Manage the organization (its settings, members, teams and SSO). */
                admin: boolean;
                /** @description The caller owns at least one team of the organization. */
                ownTeam: boolean;
                /** @description Create spaces and collections at the top of the organization. */
                createContent: boolean;
                /** @description Create OpenAPI specifications. */
                createOpenAPISpec: boolean;
                /** @description Send support conversations for ingestion. */
                ingestConversations: boolean;
                /** @description See the billing details. */
                viewBilling: boolean;
                /** @description List the members of the organization. */
                listMembers: boolean;
                /** @description List the teams of the organization. */
                listTeams: boolean;
                /** @description List the integrations of the organization. */
                listIntegrations: boolean;
                /** @description List the integration installations of the organization. */
                listInstallations: boolean;
                /** @description Install integrations in the organization. */
                installIntegration: boolean;
            };
        };
        /** @description An integration published to Quire - a script that runs on Quire's events and requests, with the blocks, content sources and configuration it provides. */
        Integration: {
            /**
             * @description Type of the object, always `integration`.
             * @constant
             */
            readonly object: "integration";
            /** @description Unique name of the integration, used in URLs. */
            readonly name: string;
            /** @description Number of the published version; each publish adds one. */
            readonly version: number;
            /** @description Name of the integration shown to people. */
            title: string;
            /** @description One-line description of the integration. */
            description: string;
            /** @description Longer presentation of the integration, in markdown. */
            summary?: string;
            /** @description URLs of the preview images of the integration (under `urls.assets`). */
            previewImages: string[];
            target: components["schemas"]["IntegrationTarget"];
            /** @description Whether the integration has been checked and vouched for by the operators of this Quire. */
            readonly verified: boolean;
            visibility: components["schemas"]["IntegrationVisibility"];
            /** @description The rights the integration asks for when it is installed. */
            scopes: components["schemas"]["IntegrationScope"][];
            /** @description The categories under which the integration is listed. */
            categories: components["schemas"]["IntegrationCategory"][];
            /** @description The content blocks the integration provides. */
            blocks?: components["schemas"]["IntegrationBlock"][];
            /** @description The computed-content sources the integration provides. */
            contentSources?: components["schemas"]["IntegrationContentSource"][];
            /** @description How installations of the integration are configured, at each level where configuration applies. */
            configurations?: {
                account?: components["schemas"]["IntegrationConfigurationSchema"];
                space?: components["schemas"]["IntegrationConfigurationSchema"];
                site?: components["schemas"]["IntegrationConfigurationSchema"];
            };
            /** @description Links to outside pages about the integration (home page, documentation, support). */
            externalLinks: {
                /**
                 * Format: uri
                 * @description Address of the page.
                 */
                url: string;
                /** @description Text of the link. */
                label: string;
            }[];
            owner: components["schemas"]["Organization"];
            /** @description Links to the integration. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the integration.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the icon of the integration (under `assets`); absent when it has none.
                 */
                icon?: string;
                /**
                 * Format: uri
                 * @description URL of the integration in the Quire app.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description Base URL of the files of the published version: `script.js`, the icon (`icon`) and the preview
                 *     images (`preview-1` to `preview-3`). The address holds a key of its own, so the files of a `private`
                 *     integration reach only those who were given the URL.
                 */
                assets: string;
                /**
                 * Format: uri
                 * @description Base URL reserved for the HTTP requests that the integration's script answers from outside; this installation keeps and serves integrations but does not run their scripts.
                 */
                publicEndpoint: string;
            };
            /** @description What the caller may do with the integration. */
            readonly permissions: {
                /** @description Whether the caller administrates the integration (is an admin of the organization that owns it) and so may publish new versions of it. */
                admin: boolean;
            };
            /** @description The Content Security Policy applied, as response headers, to the fetches of the integration's script and blocks - either a whole policy string or its directives by name. */
            contentSecurityPolicy?: string | {
                [key: string]: string;
            };
        };
        /** @description A page of integrations. */
        IntegrationList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Integration"][];
        };
        /** @description A version of an integration to publish. Publishing creates the integration, or replaces its definition with this one as a new version (only `visibility` is kept when omitted). */
        PublishIntegrationBody: {
            /**
             * @description Version of the runtime the script is written for.
             * @default v1
             * @enum {string}
             */
            runtime: "v1" | "v2";
            /** @description The icon of the integration, as a base64-encoded PNG, JPEG, GIF, WebP or SVG image of at most 2 MB. */
            icon?: string;
            /** @description Name of the integration shown to people. */
            title: string;
            /** @description One-line description of the integration. */
            description: string;
            /** @description Longer presentation of the integration, in markdown. */
            summary?: string;
            /** @description Preview images of the integration, each a base64-encoded PNG, JPEG, GIF, WebP or SVG image of at most 2 MB. */
            previewImages?: string[];
            /** @description Who can find and install the integration; when omitted, a new integration is `private` and an existing one keeps its visibility. */
            visibility?: components["schemas"]["IntegrationVisibility"];
            /** @description Where the integration can be installed; when omitted, it can be installed everywhere (`all`). */
            target?: components["schemas"]["IntegrationTarget"];
            /** @description The rights the integration asks for when it is installed. */
            scopes: components["schemas"]["IntegrationScope"][];
            /** @description The categories under which the integration is listed. */
            categories?: components["schemas"]["IntegrationCategory"][];
            /** @description The content blocks the integration provides (at most 100, each `id` once). */
            blocks?: components["schemas"]["IntegrationBlock"][];
            /** @description The computed-content sources the integration provides (at most 100, each `id` once). */
            contentSources?: components["schemas"]["IntegrationContentSource"][];
            /** @description Links to outside pages about the integration (home page, documentation, support). */
            externalLinks?: {
                /**
                 * Format: uri
                 * @description Address of the page.
                 */
                url: string;
                /** @description Text of the link. */
                label: string;
            }[];
            /** @description How installations of the integration are configured, at each level where configuration applies. */
            configurations?: {
                account?: components["schemas"]["IntegrationConfigurationSchema"];
                space?: components["schemas"]["IntegrationConfigurationSchema"];
                site?: components["schemas"]["IntegrationConfigurationSchema"];
            };
            /** @description The bundled JavaScript code of the integration, at most 5 MB. */
            script: string;
            /** @description Id of the organization that owns the integration (or its subdomain, for organizations that have one); the caller must be one of its admins. */
            organization: string;
            /** @description Secret values given to the script at run time (for example API keys of outside services), by name. They are sealed at rest and never returned. */
            secrets?: {
                [key: string]: string;
            };
            /** @description The Content Security Policy applied, as response headers, to the fetches of the integration's script and blocks - either a whole policy string or its directives by name. */
            contentSecurityPolicy?: string | {
                [key: string]: string;
            };
        };
        /** @description One page of a list of organizations. */
        OrganizationList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            /** @description The organizations on this page. */
            items: components["schemas"]["Organization"][];
        };
        /**
         * @description Where a change request stands. `draft`: being written, not yet proposed for review (new change requests
         *     start here). `open`: proposed for review and merge. `archived`: closed without merging; it can be set back to
         *     `draft` or `open`. `merged`: its content was merged into the main content of the space; reached only through
         *     the merge operation and final.
         * @enum {string}
         */
        ChangeRequestStatus: "draft" | "open" | "archived" | "merged";
        /**
         * @description One node of a rich document tree, told apart by `object`:
         *     - `block`: a block-level element. Common `type` values: `paragraph`, `heading-1`, `heading-2`, `heading-3`,
         *       `list-unordered`, `list-ordered`, `list-tasks`, `list-item`, `blockquote`, `hint`, `code`, `code-line`,
         *       `divider`, `images`, `image`, `table`, `math`, `embed`, `file`. Lists hold `list-item` blocks, code blocks
         *       hold `code-line` blocks, an `images` block holds `image` blocks. A `table` is a void block: its `data`
         *       holds its columns (`definition`, shown in the order of `view.columns`) and its rows (`records`, sorted by
         *       `orderIndex`, each mapping a column id to the id of the fragment that holds the cell), and its
         *       `fragments` hold the cells' content.
         *     - `inline`: an element inside a block's text, for example `link`, `inline-image`, `inline-math` or `mention`.
         *     - `text`: a run of text, made of `leaves` that each carry the same formatting `marks`.
         *
         *     Type-specific values (the language of a code block, the source of an image, the target of a link, the
         *     `checked` state of a task item, the columns and rows of a table...) live in `data`; `data.align` is
         *     only the alignment of the block's own text. Markdown headings of the fourth to sixth level are `heading-3`
         *     blocks with `data.level`.
         */
        DocumentBlock: {
            /**
             * @description Always `block`.
             * @constant
             */
            object: "block";
            /** @description Kind of block, for example `paragraph`, `heading-1`, `list-ordered`, `code` or `table`. */
            type: string;
            /** @description Identifier of the node, unique within the document. */
            key?: string;
            /** @description Child nodes (blocks, inline nodes or text nodes). Empty for void blocks. */
            nodes: components["schemas"]["DocumentBlock"][];
            /** @description Content that belongs to the block without being a child of it (the cells of a table, the caption of an image). */
            fragments?: components["schemas"]["DocumentFragment"][];
            /** @description True when the block has no editable text of its own (for example a divider or an image). */
            isVoid?: boolean;
            /** @description Type-specific values of the block. Further properties are kept as given. */
            data?: {
                /**
                 * @description Horizontal alignment of the block's text.
                 * @enum {string}
                 */
                align?: "start" | "center" | "end";
            } & {
                [key: string]: unknown;
            };
        } | {
            /**
             * @description Always `inline`.
             * @constant
             */
            object: "inline";
            /** @description Kind of inline node, for example `link`, `inline-image` or `inline-math`. */
            type: string;
            /** @description Identifier of the node, unique within the document. */
            key?: string;
            /** @description Child nodes, usually text nodes. Empty for void inline nodes. */
            nodes: components["schemas"]["DocumentBlock"][];
            /** @description Content that belongs to the block without being a child of it (the cells of a table, the caption of an image). */
            fragments?: components["schemas"]["DocumentFragment"][];
            /** @description True when the node has no editable text of its own (for example an inline image). */
            isVoid?: boolean;
            /** @description Type-specific values, for example the `ref` or `url` a link points at. Further properties are kept as given. */
            data?: {
                [key: string]: unknown;
            };
        } | {
            /**
             * @description Always `text`.
             * @constant
             */
            object: "text";
            /** @description Identifier of the node, unique within the document. */
            key?: string;
            /** @description Runs of text, each with one set of formatting marks. */
            leaves: {
                /**
                 * @description Always `leaf`.
                 * @constant
                 */
                object: "leaf";
                /** @description The text of the run. */
                text: string;
                /** @description Formatting applied to the whole run; empty for plain text. */
                marks: {
                    /**
                     * @description Always `mark`.
                     * @constant
                     */
                    object: "mark";
                    /** @description Kind of formatting, for example `bold`, `italic`, `strikethrough` or `code`. */
                    type: string;
                    /** @description Values of the mark, if any. Further properties are kept as given. */
                    data?: {
                        [key: string]: unknown;
                    };
                }[];
            }[];
        };
        /**
         * @description Content that belongs to a block without being one of its children, as the public document format has it:
         *     the cells of a `table` (each record's value for a column is the id of the fragment holding that cell), the
         *     caption of an `image`. The block's `data` refers to a fragment by its `fragment` id.
         */
        DocumentFragment: {
            /**
             * @description Always `fragment`.
             * @constant
             */
            object: "fragment";
            /** @description Identifier of the node, unique within the document. */
            key?: string;
            /** @description Id of the fragment within its block, which the block's `data` refers to. */
            fragment: string;
            /** @description Kind of fragment, when the block has several (for example `caption`). */
            type?: string;
            /** @description The blocks of the fragment (paragraphs, for table cells and captions). */
            nodes: components["schemas"]["DocumentBlock"][];
        };
        /**
         * @description A rich document as a tree of nodes: the top-level `nodes` are blocks (paragraphs, headings, lists, code,
         *     quotes, images, tables...), which hold further blocks, inline nodes (links, inline images...) and text nodes.
         *     It carries everything a Markdown text can express.
         */
        JSONDocument: {
            /**
             * @description Always `document`.
             * @constant
             */
            object: "document";
            /** @description Document-wide data. Further properties are kept as given. */
            data: {
                /** @description Version of the document format the tree follows. */
                schemaVersion?: number;
            } & {
                [key: string]: unknown;
            };
            /** @description The top-level blocks of the document, in reading order. */
            nodes: components["schemas"]["DocumentBlock"][];
        };
        /** @description A person who uses Quire. */
        User: {
            /** @constant */
            readonly object: "user";
            /** @description Opaque identifier of the user. */
            readonly id: string;
            /** @description Name shown to other people. */
            displayName: string;
            /**
             * Format: email
             * @description E-mail address; shown only to the user and to admins of organizations the user belongs to.
             */
            email?: string;
            /**
             * Format: uri
             * @description URL of the user's picture.
             */
            photoURL?: string;
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the user.
                 */
                location: string;
            };
        };
        /** @description A proposed set of edits to the content of a space, reviewed and then merged into its main content. */
        ChangeRequest: {
            /** @constant */
            readonly object: "change-request";
            /** @description Opaque identifier of the change request. */
            readonly id: string;
            /** @description Incremental number of the change request within its space (1, 2, 3...); accepted in place of the id in paths. */
            readonly number: number;
            status: components["schemas"]["ChangeRequestStatus"];
            /** @description Short title of the change request; empty when none was given. */
            subject: string;
            /** @description Longer explanation of the change request, as a rich document. Absent when none was given. */
            description?: components["schemas"]["JSONDocument"];
            /** @description The user who created the change request. */
            createdBy: components["schemas"]["User"];
            /**
             * Format: date-time
             * @description When the change request was created.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the change request or its content last changed.
             */
            readonly updatedAt: string;
            /** @description Id of the space the change request belongs to. */
            readonly space: string;
            /** @description Id of the current revision of the change request's content. */
            readonly revision: string;
            /** @description Id of the revision of the space's main content the change request started from. */
            readonly revisionInitial: string;
            /** @description Id of the main-content revision last pulled into the change request by an update; absent if it was never updated. */
            readonly revisionMergedAncestor?: string;
            /** @description Id of the main-content revision the merge produced; present only once the change request is merged. */
            readonly revisionMerged?: string;
            /** @description Number of open (unresolved) comments on the change request. */
            readonly comments: number;
            /** @description True when the main content of the space changed since the change request started or was last updated. */
            readonly outdated: boolean;
            /**
             * @description Whether the caller could merge the change request now under the merge rules that apply to its space
             *     (the space's own, or the organization's when the space inherits), and which rules are unmet. Present
             *     in the answers about one change request (get, create, update, content edits) while it is not merged;
             *     lists leave it out. It does not check conflicts with the main content, which only a merge finds.
             */
            readonly mergeability?: {
                /** @description True when no rule stops the caller from merging (rules all pass, or the caller may bypass them). */
                mergeable: boolean;
                /** @description Every rule that does not pass, with why; empty when all pass. */
                unmetRules: {
                    /** @description Kind of the unmet rule (a `rule` of MergeRule). */
                    rule: string;
                    /** @description Why the rule is not met. */
                    message: string;
                }[];
            };
            /** @description Id of the conversation issues cluster the change request addresses, if linked to one. */
            readonly conversationsIssuesCluster?: string;
            /** @description Links to the change request. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description URL of the change request in the Quire app.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description API URL of the change request.
                 */
                location: string;
            };
        };
        /** @description One page of a list of change requests, most recently updated first. */
        ChangeRequestList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ChangeRequest"][];
        };
        /** @description One page of a list of collections. */
        CollectionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            /** @description The collections on this page. */
            items: components["schemas"]["Collection"][];
        };
        /**
         * @description Where a conversation came from: `email` for conversations received by e-mail, or
         *     `integration:<integration>:<installation>` for conversations ingested by an integration installation.
         *     Conversations ingested through this API with a user's token take the source named by the `source` query
         *     parameter of the ingestion, `integration:api:default` when it names none.
         */
        ConversationSource: "email" | string;
        /** @description A support conversation ingested into the organization. */
        Conversation: {
            /**
             * @description Type of the object, always `conversation`.
             * @constant
             */
            readonly object: "conversation";
            /** @description Opaque identifier of the conversation in Quire. */
            readonly id: string;
            /** @description Subject of the conversation, when it was given. */
            readonly subject?: string;
            /**
             * Format: date-time
             * @description When the conversation was ingested.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the conversation was analysed into issues; absent while it waits to be processed.
             */
            readonly processedAt?: string;
            source: components["schemas"]["ConversationSource"];
            /** @description Links to the conversation. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the conversation.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the conversation in the system it was taken from (its `metadata.url`), when known.
                 */
                source?: string;
            };
        };
        /** @description A page of conversations, newest first. */
        ConversationList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Conversation"][];
        };
        /** @description One part of a conversation, in the order it was said. Only messages exist today. */
        ConversationPart: {
            /**
             * @description Kind of part, always `message`.
             * @constant
             */
            type: "message";
            /**
             * @description Who wrote the message - `user` (the person asking for help), `assistant` (an automated assistant), `team-member` (a person of the support team).
             * @enum {string}
             */
            role: "user" | "assistant" | "team-member";
            /** @description Text of the message, as markdown or HTML. */
            body: string;
        };
        /** @description Facts about a conversation given by the system it was taken from. */
        ConversationMetadata: {
            /**
             * Format: uri
             * @description URL of the conversation in the system it was taken from.
             */
            url?: string;
            /** @description Free-form attributes of the conversation (for example the product area or the customer plan), by name. */
            attributes?: {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description When the conversation started in the system it was taken from.
             */
            createdAt?: string;
        };
        /** @description A support conversation to ingest into the organization. */
        ConversationInput: {
            /** @description Identifier of the conversation in the system it comes from, unique for its source. Ingesting the same id again from the same source replaces the earlier conversation. */
            id: string;
            /** @description The parts of the conversation, oldest first. */
            parts: components["schemas"]["ConversationPart"][];
            /** @description Subject or title of the conversation. */
            subject?: string;
            metadata?: components["schemas"]["ConversationMetadata"];
        };
        /** @description A cluster of similar issues found in support conversations, with figures on how often they come up. */
        ConversationsIssuesCluster: {
            /**
             * @description Type of the object, always `issues-cluster`.
             * @constant
             */
            readonly object: "issues-cluster";
            /** @description Opaque identifier of the cluster. */
            readonly id: string;
            /** @description Short name of what the issues of the cluster have in common. */
            readonly label: string;
            /**
             * Format: date-time
             * @description When the cluster was formed.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When an issue was last added to the cluster or its figures last changed.
             */
            readonly updatedAt: string;
            /** @description Name of the icon that illustrates the cluster. */
            readonly icon: string;
            /** @description What the issues of the cluster are about, in a few sentences. */
            readonly summary: string;
            /**
             * @description Number of issues of the cluster in each of the 13 weeks that end with the current one (about three
             *     months), oldest week first. Weeks start on Monday, 00:00 UTC; an issue counts in the week its
             *     conversation started (`metadata.createdAt`, or when it was first ingested).
             */
            readonly weeklyPulse: number[];
            /** @description Number of issues of the cluster, by the source of the conversation they were found in (see ConversationSource). */
            readonly sources: {
                [key: string]: number;
            };
            /** @description Counters of the cluster. */
            readonly stats: {
                /** @description Number of issues in the cluster. */
                issues: number;
                /** @description Number of distinct conversations the issues come from. */
                conversations: number;
                /** @description Number of tasks opened to address the cluster - the change requests linked to it (their `conversationsIssuesCluster`) in the organization's spaces that are not deleted. */
                tasksTotal: number;
                /** @description Tasks not started yet - linked change requests still `draft`. */
                tasksBacklog: number;
                /** @description Tasks in progress - linked change requests `open` for review. */
                tasksStarted: number;
                /** @description Tasks done - linked change requests `merged`. */
                tasksCompleted: number;
                /** @description Tasks dropped - linked change requests `archived`. */
                tasksCancelled: number;
            };
            /** @description Links to the cluster. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the cluster.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the cluster in the Quire app.
                 */
                app: string;
            };
        };
        /** @description A page of issue clusters. */
        ConversationsIssuesClusterList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ConversationsIssuesCluster"][];
        };
        /** @description An issue found in a conversation when it was analysed. Similar issues are grouped into clusters. */
        ConversationIssue: {
            /**
             * @description Type of the object, always `conversation-issue`.
             * @constant
             */
            readonly object: "conversation-issue";
            /** @description Opaque identifier of the issue. */
            readonly id: string;
            /** @description Short statement of the issue. */
            readonly title: string;
            /** @description What the issue is about, in a few sentences. */
            readonly summary: string;
            /**
             * Format: date-time
             * @description When the issue was found.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the conversation the issue was found in was ingested.
             */
            readonly ingestedAt: string;
            /** @description Id of the conversation the issue was found in. */
            readonly conversation: string;
            /** @description Id of the cluster the issue was grouped into; absent while it is not grouped yet. */
            readonly cluster?: string;
            /** @description Links to the issue. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the issue.
                 */
                location: string;
            };
        };
        /** @description A conversation issue together with the conversation it was found in. */
        ConversationIssueWithConversation: {
            issue: components["schemas"]["ConversationIssue"];
            conversation: components["schemas"]["Conversation"];
        };
        /** @description A page of conversation issues, each with its conversation, newest first. */
        ConversationIssueWithConversationList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ConversationIssueWithConversation"][];
        };
        /** @description A conversation with everything that was ingested for it. */
        ConversationDetails: {
            conversation: components["schemas"]["Conversation"];
            /** @description The parts of the conversation, oldest first. */
            parts: components["schemas"]["ConversationPart"][];
            metadata: components["schemas"]["ConversationMetadata"];
        };
        /** @description A user's membership of an organization. */
        Member: {
            /** @constant */
            readonly object: "member";
            /** @description Id of the member; the same as the id of its user, used as `{userId}` in member paths. */
            readonly id: string;
            role: components["schemas"]["MemberRoleOrGuest"];
            user: components["schemas"]["User"];
            /** @description True when the member's access to the organization is suspended. */
            readonly disabled: boolean;
            /**
             * Format: date-time
             * @description When the user joined the organization.
             */
            readonly joinedAt: string;
            /**
             * Format: date-time
             * @description When the member was last active in the organization (see the ping operation). Absent when the member has never been seen.
             */
            readonly lastSeenAt?: string;
            /** @description True when the member signs in through the organization's SAML single sign-on. */
            readonly sso: boolean;
            /** @description Number of spaces the member can access. */
            readonly spaces: number;
            /** @description Number of teams the member belongs to. */
            readonly teams: number;
        };
        /** @description One page of organization members. */
        MemberList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Member"][];
        };
        /** @description A space an organization member can access, with the role the member has on it. */
        MemberSpace: {
            permission: components["schemas"]["MemberRole"];
            space: components["schemas"]["Space"];
        };
        /** @description One page of the spaces an organization member can access. */
        MemberSpaceList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["MemberSpace"][];
        };
        /** @description A named group of members of an organization, to which content can be shared as a whole. */
        Team: {
            /** @constant */
            readonly object: "team";
            /** @description Opaque identifier of the team. */
            readonly id: string;
            /** @description Name of the team. */
            title: string;
            /** @description Number of members in the team. */
            readonly members: number;
            /** @description Number of spaces the team has access to. */
            readonly spaces: number;
            /**
             * Format: date-time
             * @description When the team was created.
             */
            readonly createdAt: string;
            /** @description What the caller may do with this team. */
            readonly permissions: {
                /** @description The caller may change the team (its title, its members and their roles) and delete it. */
                admin: boolean;
                /** @description The caller may see the team and its members. */
                view: boolean;
            };
        };
        /**
         * @description A member's role in a team. An `owner` can manage the members of the team; a `member` only belongs to it.
         * @enum {string}
         */
        TeamMemberRole: "owner" | "member";
        /** @description A team an organization member belongs to, with the member's role in it. */
        MemberTeam: {
            team: components["schemas"]["Team"];
            /** @description The member's membership in this team. */
            member: {
                role: components["schemas"]["TeamMemberRole"];
            };
        };
        /** @description One page of the teams of an organization member. */
        MemberTeamList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["MemberTeam"][];
        };
        /** @description An OpenAPI specification stored in an organization. Each successful processing of its source produces a new version. */
        OpenAPISpec: {
            /**
             * @description Type of the object, always `openapi-spec`.
             * @constant
             */
            readonly object: "openapi-spec";
            /** @description Opaque identifier of the specification. */
            readonly id: string;
            /**
             * Format: date-time
             * @description When the specification was created.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the specification, or its source, was last changed.
             */
            readonly updatedAt: string;
            /** @description Name of the specification in URLs, unique within the organization; letters and digits in groups joined by single hyphens. */
            slug: string;
            /**
             * Format: uri
             * @description URL the source is fetched from; absent when the source was sent as text.
             */
            readonly sourceURL?: string;
            /**
             * @description Where the processing of the latest source stands - `pending` (waiting to be processed), `progress` (being fetched and parsed), `complete` (done, successfully or not; see `lastProcessErrorCode`).
             * @enum {string}
             */
            readonly processingState: "pending" | "progress" | "complete";
            /**
             * @description `private`: visible only to members of the organization; `public`: available to anyone who has its public link (`urls.published`).
             * @enum {string}
             */
            visibility?: "private" | "public";
            /** @description Id of the latest version produced from the source; absent until a processing succeeds. */
            readonly lastVersion?: string;
            /**
             * Format: date-time
             * @description When the source was last processed, successfully or not.
             */
            readonly lastProcessedAt?: string;
            /**
             * @description Why the last processing failed - `FETCH_TIMEOUT` (the source URL did not answer in time), `FETCH_ERROR` (the source URL could not be fetched), `PARSE_ERROR` (the document is not a valid OpenAPI document). Absent when the last processing succeeded.
             * @enum {string}
             */
            readonly lastProcessErrorCode?: "FETCH_TIMEOUT" | "FETCH_ERROR" | "PARSE_ERROR";
            /** @description The problems found in the document by the last processing. */
            readonly lastProcessedErrors?: {
                /** @description What is wrong, in words a person can act on. */
                message: string;
                /** @description Short machine-readable name of the problem, when there is one. */
                code?: string;
            }[];
            /** @description What the caller may do with this specification. */
            readonly permissions: {
                /** @description Whether the caller may read the specification and its versions. */
                view: boolean;
                /** @description Whether the caller may change its source or visibility, or delete it. */
                edit: boolean;
            };
            /** @description Links to the specification. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the specification.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the specification in the Quire app.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description Public URL of the latest version; present only when `visibility` is `public`.
                 */
                published?: string;
            };
        };
        /** @description A page of OpenAPI specifications. */
        OpenAPISpecList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["OpenAPISpec"][];
        };
        /**
         * @description Where the content of an OpenAPI specification comes from: either a URL that Quire fetches (and fetches again
         *     when the specification is re-sourced), or the raw text of the document (JSON or YAML) sent inline.
         */
        OpenAPISpecSource: {
            /**
             * Format: uri
             * @description URL of the document, fetched by the server (HTTP or HTTPS; local and private addresses are refused unless the operator allows them).
             */
            url: string;
        } | {
            /** @description The whole OpenAPI document as JSON or YAML text. */
            text: string;
        };
        /** @description One version of an OpenAPI specification, produced by a successful processing of its source. Versions never change once made. */
        OpenAPISpecVersion: {
            /**
             * @description Type of the object, always `openapi-spec-version`.
             * @constant
             */
            readonly object: "openapi-spec-version";
            /** @description Opaque identifier of the version. */
            readonly id: string;
            /**
             * Format: date-time
             * @description When the version was produced.
             */
            readonly createdAt: string;
            /**
             * Format: uri
             * @description URL where the raw source of this version can be downloaded.
             */
            readonly url: string;
            /** @description Links to the version. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the version.
                 */
                location: string;
            };
        };
        /** @description A page of versions of an OpenAPI specification, newest first. */
        OpenAPISpecVersionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["OpenAPISpecVersion"][];
        };
        /** @description The content of a version of an OpenAPI specification. */
        OpenAPISpecContent: {
            /**
             * @description The files of the version, parsed, keyed by name: the root document first (its source URL, or
             *     `openapi.json` / `openapi.yaml` when it was sent as text), then every external file its `$ref`s
             *     resolved to, by URL.
             */
            filesystem: {
                [key: string]: unknown;
            };
            /**
             * Format: uri
             * @description URL where the raw source of the version can be downloaded.
             */
            url: string;
        };
        /**
         * @description A SAML 2.0 identity provider through which members of the organization sign in. `ssoURL`, `entityID` and
         *     `certificate` describe the identity provider and are empty until set; `service` describes the Quire side,
         *     to be entered in the identity provider.
         */
        SAMLProvider: {
            /** @constant */
            readonly object: "saml-provider";
            /** @description Opaque identifier of the SAML provider. */
            readonly id: string;
            /** @description Name of the provider shown on the login page. */
            label: string;
            /** @description URL of the identity provider's single sign-on endpoint, or an empty string until set. */
            ssoURL: string | "";
            /** @description Entity id of the identity provider, or an empty string until set. */
            entityID: string;
            /** @description X.509 signing certificate of the identity provider (PEM or base64), or an empty string until set. */
            certificate: string;
            /** @description Team that members joining through this provider are added to. Absent when there is none. */
            defaultTeam?: components["schemas"]["Team"];
            /** @description Role of members joining the organization through this provider; `null` makes them guests. */
            defaultRole: components["schemas"]["MemberRoleOrGuest"];
            /**
             * Format: date-time
             * @description When the provider was created.
             */
            readonly createdAt: string;
            /**
             * @description `active` when members can sign in through the provider; `pending` while its configuration is incomplete.
             * @enum {string}
             */
            readonly status: "active" | "pending";
            /** @description The service-provider side of the SAML connection, to configure in the identity provider. */
            readonly service: {
                /**
                 * Format: uri
                 * @description Assertion consumer service URL, where the identity provider posts its SAML responses.
                 */
                acsURL: string;
                /**
                 * Format: uri
                 * @description URL that starts a sign-in through this provider.
                 */
                startURL: string;
                /**
                 * @description Entity id of Quire as service provider, also the address of its SAML metadata: the ACS URL and the
                 *     certificate of the key that signs this provider's AuthnRequests (RSA-SHA256), one key per provider.
                 */
                entityID: string;
            };
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the SAML provider.
                 */
                location: string;
            };
        };
        /** @description One page of SAML providers. */
        SAMLProviderList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SAMLProvider"][];
        };
        /**
         * @description The plan of a docs site, which decides the features it has. New sites are `basic` unless another type is
         *     asked for. `legacy-basic` and `legacy-premium` are plans of sites created before the current plans existed.
         * @enum {string}
         */
        SiteType: "basic" | "premium" | "ultimate" | "sponsored" | "legacy-basic" | "legacy-premium";
        /**
         * @description Who can read a published site: `public` anyone, and search engines index it; `unlisted` anyone who has its
         *     address, without indexing; `share-link` only people who open it through one of its share links;
         *     `visitor-auth` only visitors authenticated by the site's own authentication (a signed JWT).
         * @enum {string}
         */
        SiteVisibility: "public" | "unlisted" | "share-link" | "visitor-auth";
        /** @description A docs site, which publishes one or more spaces of the organization to an audience. */
        Site: {
            /** @constant */
            readonly object: "site";
            /** @description Opaque identifier of the site. */
            readonly id: string;
            type: components["schemas"]["SiteType"];
            /** @description Name of the site, shown to its readers. */
            title: string;
            /** @description Icon of the site, one image for the light theme and one for the dark theme. */
            icon?: {
                icon: {
                    /**
                     * Format: uri
                     * @description URL of the icon shown with the light theme.
                     */
                    light: string;
                    /**
                     * Format: uri
                     * @description URL of the icon shown with the dark theme.
                     */
                    dark: string;
                };
            };
            /** @description Custom hostname the site is served on, when one is set up (at least three labels, lower case). */
            readonly hostname?: string;
            /** @description Path segment the site is served under on the organization's hostname. */
            basename?: string;
            /** @description Present when the site is served under a path of another domain through a reverse proxy. */
            proxy?: {
                /** @description Domain and path that readers visit, for example `example.com/docs`. */
                origin: string;
                /** @description Address the proxy forwards requests to, where the service answers for this site. */
                target: string;
            };
            visibility: components["schemas"]["SiteVisibility"];
            /** @description When true the site is online for the audience its visibility defines; changed by publishing and unpublishing. */
            readonly published: boolean;
            /** @description Number of spaces linked to the site. */
            readonly siteSpaces: number;
            /**
             * Format: date-time
             * @description When the site was created.
             */
            readonly createdAt: string;
            /** @description Adaptive content settings; when enabled, pages and site spaces can be shown or hidden from the visitor's claims. */
            adaptiveContent?: {
                /** @description Whether adaptive content is turned on for the site. */
                enabled: boolean;
            };
            /** @description State of the site in the advertising programme. */
            readonly ads?: {
                /**
                 * @description Where the site stands: `pending` not submitted yet, `in-review` submitted and being reviewed,
                 *     `rejected` refused, `live` ads are shown, `disabled` ads are turned off.
                 * @enum {string}
                 */
                status: "pending" | "in-review" | "rejected" | "live" | "disabled";
                /** @description Whether the site can be submitted for review now (meaningful while `pending`). */
                submittable?: boolean;
            };
            /**
             * @description Whether the AI agent may read the site's content (`included`) or not (`excluded`).
             * @enum {string}
             */
            agentsContext: "excluded" | "included";
            /**
             * @description Premium features the site uses, each with the plan it belongs to. A self-hosted installation sells no
             *     plans, so every site has every feature: a feature is listed when the site uses it (adaptive content,
             *     advanced customization with the customizations used, a custom domain, share-link, unlisted or
             *     visitor-auth visibility), on the site's own `type`, and is never `frozen`.
             */
            readonly features: {
                /** @description Key of the feature, for example `sites-adaptive-content` or `sites-share-links`. */
                id: string;
                plan: components["schemas"]["SiteType"];
                /** @description True when the feature is kept as it is but can no longer be changed, because the current plan lacks it. */
                frozen: boolean;
                /** @description Customization keys the feature unlocks. */
                customizations?: string[];
            }[];
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the site.
                 */
                location: string;
                /**
                 * Format: uri
                 * @description URL of the site in the application.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description Public URL of the site; present once the site is published.
                 */
                published?: string;
            };
        };
        /** @description One page of a list of sites. */
        SiteList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Site"][];
        };
        /**
         * @description Declaration of one visitor claim in a site's adaptive schema. A claim is a boolean, a string (free, or one of
         *     an `enum`), a number, an array of primitive values, or an object that holds further claims. Every form needs a
         *     `description` and accepts no other keyword.
         */
        SiteAdaptiveClaim: {
            /** @constant */
            type: "boolean";
            /** @description What the claim means. */
            description: string;
        } | {
            /** @constant */
            type: "string";
            /** @description The values the claim may take. */
            enum: string[];
            /** @description What the claim means. */
            description: string;
        } | {
            /** @constant */
            type: "string";
            /** @description What the claim means. */
            description: string;
        } | {
            /** @constant */
            type: "number";
            /** @description What the claim means. */
            description: string;
        } | {
            /** @constant */
            type: "array";
            /** @description What the claim means. */
            description: string;
            /** @description Type of the values of the array. */
            items: {
                /** @enum {string} */
                type: "string" | "number" | "boolean";
            };
        } | {
            /** @constant */
            type: "object";
            /** @description What the group of claims means. */
            description: string;
            /** @description The nested claims, by name. */
            properties: {
                [key: string]: components["schemas"]["SiteAdaptiveClaim"];
            };
            /**
             * @description Always false; claims not declared are refused.
             * @constant
             */
            additionalProperties: false;
        };
        /**
         * @description A draft-07 JSON Schema, of type `object`, that declares the claims a site's visitors may carry. `properties`
         *     holds the signed claims by name, plus `unsigned`, an object that declares the claims visitors may set
         *     without a signature. Neither level accepts undeclared keys (`additionalProperties` is false at both).
         */
        SiteAdaptiveJSONSchema: {
            /**
             * @description The JSON Schema dialect, draft-07.
             * @constant
             */
            $schema?: "http://json-schema.org/draft-07/schema#";
            /** @constant */
            type: "object";
            /** @description The claims by name; the key `unsigned` is reserved for the unsigned claims. */
            properties: {
                /** @description Declares the claims that visitors may set without a signature. */
                unsigned?: {
                    /** @constant */
                    type: "object";
                    /**
                     * @description Fixed text that labels the unsigned claims.
                     * @constant
                     */
                    description: "Unsigned claims of the site visitor.";
                    /** @description The unsigned claims, by name. */
                    properties: {
                        [key: string]: components["schemas"]["SiteAdaptiveClaim"];
                    };
                    /**
                     * @description Always false; unsigned claims not declared are refused.
                     * @constant
                     */
                    additionalProperties: false;
                };
            } & {
                [key: string]: components["schemas"]["SiteAdaptiveClaim"];
            };
            /**
             * @description Always false; claims not declared are refused.
             * @constant
             */
            additionalProperties: false;
        };
        /** @description The adaptive-content schema of a docs site, which declares the visitor claims its conditions may use. */
        SiteAdaptiveSchema: {
            /** @constant */
            readonly object: "site-adaptive-schema";
            jsonSchema: components["schemas"]["SiteAdaptiveJSONSchema"];
            /**
             * Format: date-time
             * @description When the schema was last replaced.
             */
            readonly updatedAt: string;
        };
        /** @description Title shown in the header in place of the site's title. */
        SiteCustomizationTitle: string;
        /** @description A color for each theme, as a hexadecimal CSS color (`#346DDB` or `#36D`). */
        CustomizationThemedColor: {
            /** @description Color used with the light theme. */
            light: string;
            /** @description Color used with the dark theme. */
            dark: string;
        };
        /** @description Look of the site. */
        CustomizationStyling: {
            /**
             * @description Overall theme.
             * @enum {string}
             */
            theme?: "clean" | "muted" | "bold" | "gradient";
            /** @description Main color of the site, for links and highlights. */
            primaryColor?: components["schemas"]["CustomizationThemedColor"];
            /** @description Color of informational hints. */
            infoColor?: components["schemas"]["CustomizationThemedColor"];
            /** @description Color of success hints. */
            successColor?: components["schemas"]["CustomizationThemedColor"];
            /** @description Color of warning hints. */
            warningColor?: components["schemas"]["CustomizationThemedColor"];
            /** @description Color of danger hints. */
            dangerColor?: components["schemas"]["CustomizationThemedColor"];
            /** @description Tint applied to the backgrounds of the site. */
            tint?: {
                /** @description Tint color. */
                color: components["schemas"]["CustomizationThemedColor"];
            };
            /**
             * @deprecated
             * @description Legacy background style (`match` tinted it with the primary color); `tint` replaces it. Kept because the public API's clients still require it.
             * @enum {string}
             */
            background?: "plain" | "match";
            /**
             * @description Shape of the corners of boxes and buttons.
             * @enum {string}
             */
            corners?: "straight" | "rounded" | "circular";
            /**
             * @description Whether surfaces have shadows (`subtle`) or none (`flat`).
             * @enum {string}
             */
            depth?: "subtle" | "flat";
            /**
             * @description Style of links in the content.
             * @enum {string}
             */
            links?: "default" | "accent";
            /**
             * @description Font of the text.
             * @enum {string}
             */
            font?: "ABCFavorit" | "Inter" | "FiraSans" | "IBMPlexSerif" | "Lato" | "Merriweather" | "NotoSans" | "OpenSans" | "Overpass" | "Poppins" | "Raleway" | "Roboto" | "RobotoSlab" | "SourceSansPro" | "Ubuntu";
            /**
             * @description Font of code.
             * @enum {string}
             */
            monospaceFont?: "DMMono" | "FiraCode" | "IBMPlexMono" | "Inconsolata" | "JetBrainsMono" | "RobotoMono" | "SourceCodePro" | "SpaceMono";
            /**
             * @description Style of the icons.
             * @enum {string}
             */
            icons?: "regular" | "solid" | "duotone" | "light" | "thin";
            /** @description Look of the table of contents. */
            sidebar?: {
                /**
                 * @description Background of the sidebar.
                 * @enum {string}
                 */
                background?: "default" | "filled";
                /**
                 * @description How the current entry is marked.
                 * @enum {string}
                 */
                list?: "default" | "pill" | "line";
            };
            /**
             * @description How visible the search box is.
             * @enum {string}
             */
            search?: "prominent" | "subtle";
        };
        /** @description Language of the site's own labels (kept for clients of the public API, which still requires it). */
        CustomizationInternationalization: {
            /**
             * @description Language code.
             * @enum {string}
             */
            locale?: "en" | "fr" | "es" | "zh" | "ja" | "de" | "nl" | "no" | "pt-br" | "ru";
        };
        /** @description An image for each theme, by its absolute URL. */
        CustomizationThemedURL: {
            /**
             * Format: uri
             * @description URL of the image used with the light theme.
             */
            light: string;
            /**
             * Format: uri
             * @description URL of the image used with the dark theme.
             */
            dark: string;
        };
        /** @description Icon shown in browser tabs; `{}` for the service's own. */
        CustomizationFavicon: {
            /** @description The favicon images. */
            icon?: components["schemas"]["CustomizationThemedURL"];
        };
        /**
         * @description Where a link of the header, the footer or the announcement goes: an address on the web, or a page, anchor,
         *     space or collection of the site's organization (checked when the customization is written: 400 for one
         *     that does not exist there).
         */
        CustomizationLinkTarget: {
            /** @constant */
            kind: "url";
            /**
             * Format: uri
             * @description Absolute URL.
             */
            url: string;
        } | {
            /** @constant */
            kind: "page";
            /** @description Id of the page. */
            page: string;
            /** @description Id of the space the page is in. */
            space: string;
        } | {
            /** @constant */
            kind: "anchor";
            /** @description Id of the heading in the page. */
            anchor: string;
            /** @description Id of the page. */
            page: string;
            /** @description Id of the space the page is in. */
            space: string;
        } | {
            /** @constant */
            kind: "space";
            /** @description Id of the space. */
            space: string;
        } | {
            /** @constant */
            kind: "collection";
            /** @description Id of the collection. */
            collection: string;
        };
        /** @description A titled link. */
        CustomizationContentLink: {
            /** @description Text of the link. */
            title: string;
            to: components["schemas"]["CustomizationLinkTarget"];
        };
        /** @description The header of the site. */
        CustomizationHeader: {
            /**
             * @description Legacy look of the header (the public API keeps it beside `styling.theme`).
             * @enum {string}
             */
            preset?: "default" | "bold" | "contrast" | "custom" | "none";
            /** @description Logo shown in the header. */
            logo?: components["schemas"]["CustomizationThemedURL"];
            /** @description Links of the header, in order. */
            links?: {
                /** @description Text of the link. */
                title: string;
                /**
                 * @description Whether the link shows as a plain link or as a button.
                 * @enum {string}
                 */
                style?: "link" | "button-primary" | "button-secondary";
                /** @description Where the link goes; null (or absent) for an entry that only opens its drop-down `links`. */
                to?: components["schemas"]["CustomizationLinkTarget"] | null;
                /** @description Links of a drop-down menu opened by this link. */
                links?: components["schemas"]["CustomizationContentLink"][];
                /** @description Adaptive-content expression (parsed as site-space conditions are; 400 when invalid); the link is shown only to visitors for whom it is true. */
                condition?: string;
            }[];
        };
        /** @description The footer of the site. */
        CustomizationFooter: {
            /** @description Logo shown in the footer. */
            logo?: components["schemas"]["CustomizationThemedURL"];
            /** @description Columns of links. */
            groups?: {
                /** @description Heading of the column. */
                title: string;
                links: components["schemas"]["CustomizationContentLink"][];
            }[];
            /** @description Copyright notice. */
            copyright?: string;
        };
        /** @description A banner shown above every page. */
        CustomizationAnnouncement: {
            /** @description Whether the banner is shown. */
            enabled: boolean;
            /** @description Text of the banner. */
            message: string;
            /** @description Link shown after the message. */
            link?: components["schemas"]["CustomizationContentLink"];
            /**
             * @description Color scheme of the banner.
             * @enum {string}
             */
            style: "info" | "warning" | "danger" | "success";
        };
        /** @description Light and dark themes. */
        CustomizationThemes: {
            /**
             * @description Theme used when the reader has not chosen one (the public API knows no other value).
             * @enum {string}
             */
            default?: "light" | "dark";
            /** @description Whether readers can switch between the themes. */
            toggeable?: boolean;
        };
        /** @description Export of pages to PDF by readers. */
        CustomizationPdf: {
            /** @description Whether it is turned on. */
            enabled?: boolean;
        };
        /** @description Page rating by readers. */
        CustomizationFeedback: {
            /** @description Whether it is turned on. */
            enabled?: boolean;
        };
        /** @description AI features offered to readers. */
        CustomizationAi: {
            /**
             * @description No AI, AI answers in search, or an AI assistant.
             * @enum {string}
             */
            mode?: "none" | "search" | "assistant";
        };
        /** @description Advanced customization of the site's look. */
        CustomizationAdvancedCustomization: {
            /** @description Whether it is turned on. */
            enabled?: boolean;
        };
        /** @description Links to the Git repository of the content. */
        CustomizationGit: {
            /** @description Whether pages show a link to edit them in the repository. */
            showEditLink?: boolean;
        };
        /** @description Actions offered on each page. */
        CustomizationPageActions: {
            /** @description Whether readers can open the page in external AI tools. */
            externalAI?: boolean;
            /** @description Whether readers can copy or view the page as Markdown. */
            markdown?: boolean;
            /** @description Whether readers are offered to connect the site's MCP server. */
            mcp?: boolean;
        };
        /** @description How links to other sites open. */
        CustomizationExternalLinks: {
            /**
             * @description In the same tab (`self`) or a new one (`blank`).
             * @enum {string}
             */
            target?: "self" | "blank";
        };
        /** @description Links to the previous and next pages at the bottom of each page. */
        CustomizationPagination: {
            /** @description Whether it is turned on. */
            enabled?: boolean;
        };
        /** @description The service's trademark in the footer. */
        CustomizationTrademark: {
            /** @description Whether it is turned on. */
            enabled?: boolean;
        };
        /** @description Privacy policy linked from the site. */
        CustomizationPrivacyPolicy: {
            /**
             * Format: uri
             * @description URL of the privacy policy.
             */
            url?: string;
        };
        /** @description Image used when pages are shared on social networks. */
        CustomizationSocialPreview: {
            /**
             * Format: uri
             * @description URL of the image.
             */
            url?: string;
        };
        /** @description Reader analytics. */
        CustomizationInsights: {
            /** @description Whether a cookie is set to count unique visitors. */
            trackingCookie?: boolean;
        };
        /**
         * @description How a published site, or one of its site spaces, looks and behaves for readers. In a request every key is
         *     optional (a missing key keeps the service's default, or for a site space the site's setting); answers carry
         *     every key, defaults filled in. Colors are hexadecimal CSS colors (`#346DDB`), images absolute URLs.
         */
        SiteCustomization: {
            title?: components["schemas"]["SiteCustomizationTitle"];
            styling?: components["schemas"]["CustomizationStyling"];
            internationalization?: components["schemas"]["CustomizationInternationalization"];
            favicon?: components["schemas"]["CustomizationFavicon"];
            header?: components["schemas"]["CustomizationHeader"];
            footer?: components["schemas"]["CustomizationFooter"];
            announcement?: components["schemas"]["CustomizationAnnouncement"];
            themes?: components["schemas"]["CustomizationThemes"];
            pdf?: components["schemas"]["CustomizationPdf"];
            feedback?: components["schemas"]["CustomizationFeedback"];
            ai?: components["schemas"]["CustomizationAi"];
            advancedCustomization?: components["schemas"]["CustomizationAdvancedCustomization"];
            git?: components["schemas"]["CustomizationGit"];
            pageActions?: components["schemas"]["CustomizationPageActions"];
            externalLinks?: components["schemas"]["CustomizationExternalLinks"];
            pagination?: components["schemas"]["CustomizationPagination"];
            trademark?: components["schemas"]["CustomizationTrademark"];
            privacyPolicy?: components["schemas"]["CustomizationPrivacyPolicy"];
            socialPreview?: components["schemas"]["CustomizationSocialPreview"];
            insights?: components["schemas"]["CustomizationInsights"];
        };
        /** @description The link between a docs site and one of the spaces it publishes, with the place of the space on the site. */
        SiteSpace: {
            /** @constant */
            readonly object: "site-space";
            /** @description Opaque identifier of the link between the site and the space (not the space id). */
            readonly id: string;
            /** @description Path of the space on the site, relative to the site (or to its section). */
            path: string;
            /** @description Id of the site section the space belongs to; absent when it sits at the root of the site. */
            readonly section?: string;
            space: components["schemas"]["Space"];
            /** @description Title under which the space appears on the site. */
            readonly title: string;
            /** @description True for the space readers land on by default (at the root of the site, or of its default section). */
            readonly default?: boolean;
            /** @description Adaptive-content expression over the visitor's claims; the space is shown only to visitors for whom it is true. */
            condition?: string;
            /** @description Whether the space can have customizations of its own that override those of the site. */
            readonly hasAdvancedCustomizationFeature?: boolean;
            readonly urls: {
                /**
                 * Format: uri
                 * @description Public URL of the space on the site; present when the site is published.
                 */
                published?: string;
            };
        };
        /** @description A section of a docs site; it holds one or more site spaces and appears as a tab of the site. */
        SiteSection: {
            /** @constant */
            readonly object: "site-section";
            /** @description Opaque identifier of the section. */
            readonly id: string;
            /** @description Name of the section, shown to readers. */
            title: string;
            /** @description Short text about the section. */
            description?: string;
            /** @description True for the section readers land on by default. */
            default?: boolean;
            /** @description Path of the section on the site. */
            path: string;
            /** @description Adaptive-content expression over the visitor's claims; the section is shown only to visitors for whom it is true. */
            condition?: string;
            /** @description Id of the section group that holds the section; absent when the section sits at the root of the site. */
            sectionGroup?: string;
            /** @description The site spaces of the section. */
            readonly siteSpaces: components["schemas"]["SiteSpace"][];
            /** @description Name of the icon shown next to the title. */
            icon?: string;
            readonly urls: {
                /**
                 * Format: uri
                 * @description Public URL of the section; present when the site is published.
                 */
                published?: string;
            };
        };
        /** @description A named group of site sections, shown as one entry that opens onto its sections. */
        SiteSectionGroup: {
            /** @constant */
            readonly object: "site-section-group";
            /** @description Opaque identifier of the section group. */
            readonly id: string;
            /** @description Name of the group, shown to readers. */
            title: string;
            /** @description Id of the parent section group; absent when the group sits at the root of the site. */
            sectionGroup?: string;
            /** @description Name of the icon shown next to the title. */
            icon?: string;
            /** @description The sections and nested section groups of the group, in their order. */
            readonly children: (components["schemas"]["SiteSection"] | components["schemas"]["SiteSectionGroup"])[];
        };
        /**
         * @description Everything needed to render a published docs site: the site, its structure (sections and section groups, or
         *     site spaces when the site has no sections), its customizations and the scripts integrations inject into it.
         */
        PublishedContentSite: {
            /** @constant */
            readonly object: "published-content-site";
            site: components["schemas"]["Site"];
            /** @description How the site's content is arranged, at its top level. */
            structure: {
                /** @constant */
                type: "sections";
                structure: (components["schemas"]["SiteSection"] | components["schemas"]["SiteSectionGroup"])[];
            } | {
                /** @constant */
                type: "siteSpaces";
                structure: components["schemas"]["SiteSpace"][];
            };
            /**
             * @description The complete customization of the site (`getSiteCustomizationById`), and of each of its site spaces: the
             *     site's with the site space's overrides applied (`getSiteSpaceCustomizationById`).
             */
            customizations: {
                site: components["schemas"]["SiteCustomization"];
                /** @description Complete customization of each site space, by site-space id. */
                siteSpaces: {
                    [key: string]: components["schemas"]["SiteCustomization"];
                };
            };
            /**
             * @description Scripts that integrations installed on the site, with the `site:script:inject` scope, load in its pages.
             *     Quire publishes integrations but has no operation that installs one on a site, so this list is empty.
             */
            scripts: {
                /**
                 * Format: uri
                 * @description URL of the script.
                 */
                script: string;
                /** @description Content-Security-Policy directives the script needs. */
                contentSecurityPolicy?: string;
                /** @description Whether the script sets cookies, so that readers are asked for consent first. */
                cookies: boolean;
            }[];
        };
        /** @description One page of a list of site section groups. */
        SiteSectionGroupList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteSectionGroup"][];
        };
        /** @description One page of a list of site sections. */
        SiteSectionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteSection"][];
        };
        /** @description A secret link that lets people outside the organization read a site whose visibility is `share-link`. */
        ShareLink: {
            /** @constant */
            readonly object: "share-link";
            /** @description Opaque identifier of the share link. */
            readonly id: string;
            /**
             * Format: date-time
             * @description When the share link was created.
             */
            readonly createdAt: string;
            /** @description Label that says who the link is for. */
            name: string;
            /** @description Whether the link opens the site; an inactive link is kept but refused. */
            active: boolean;
            readonly urls: {
                /**
                 * Format: uri
                 * @description Address of the site that carries the secret key of this link; present when the site is published.
                 */
                published?: string;
            };
        };
        /** @description One page of a list of share links. */
        ShareLinkList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ShareLink"][];
        };
        /** @description One page of a list of site spaces. */
        SiteSpaceList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteSpace"][];
        };
        /**
         * @description What a site space changes of its site's customization. Each key given replaces the site space's override of
         *     that key (objects are merged key by key with the site's setting when answered); null removes the override,
         *     so the site's setting applies again; an absent key leaves the override as it is.
         */
        SiteSpaceCustomizationOverride: {
            /** @description Override of `title`, or null to remove it. */
            title?: components["schemas"]["SiteCustomizationTitle"] | null;
            /** @description Override of `styling`, or null to remove it. */
            styling?: components["schemas"]["CustomizationStyling"] | null;
            /** @description Override of `internationalization`, or null to remove it. */
            internationalization?: components["schemas"]["CustomizationInternationalization"] | null;
            /** @description Override of `favicon`, or null to remove it. */
            favicon?: components["schemas"]["CustomizationFavicon"] | null;
            /** @description Override of `header`, or null to remove it. */
            header?: components["schemas"]["CustomizationHeader"] | null;
            /** @description Override of `footer`, or null to remove it. */
            footer?: components["schemas"]["CustomizationFooter"] | null;
            /** @description Override of `announcement`, or null to remove it. */
            announcement?: components["schemas"]["CustomizationAnnouncement"] | null;
            /** @description Override of `themes`, or null to remove it. */
            themes?: components["schemas"]["CustomizationThemes"] | null;
            /** @description Override of `pdf`, or null to remove it. */
            pdf?: components["schemas"]["CustomizationPdf"] | null;
            /** @description Override of `feedback`, or null to remove it. */
            feedback?: components["schemas"]["CustomizationFeedback"] | null;
            /** @description Override of `ai`, or null to remove it. */
            ai?: components["schemas"]["CustomizationAi"] | null;
            /** @description Override of `advancedCustomization`, or null to remove it. */
            advancedCustomization?: components["schemas"]["CustomizationAdvancedCustomization"] | null;
            /** @description Override of `git`, or null to remove it. */
            git?: components["schemas"]["CustomizationGit"] | null;
            /** @description Override of `pageActions`, or null to remove it. */
            pageActions?: components["schemas"]["CustomizationPageActions"] | null;
            /** @description Override of `externalLinks`, or null to remove it. */
            externalLinks?: components["schemas"]["CustomizationExternalLinks"] | null;
            /** @description Override of `pagination`, or null to remove it. */
            pagination?: components["schemas"]["CustomizationPagination"] | null;
            /** @description Override of `trademark`, or null to remove it. */
            trademark?: components["schemas"]["CustomizationTrademark"] | null;
            /** @description Override of `privacyPolicy`, or null to remove it. */
            privacyPolicy?: components["schemas"]["CustomizationPrivacyPolicy"] | null;
            /** @description Override of `socialPreview`, or null to remove it. */
            socialPreview?: components["schemas"]["CustomizationSocialPreview"] | null;
            /** @description Override of `insights`, or null to remove it. */
            insights?: components["schemas"]["CustomizationInsights"] | null;
        };
        /**
         * @description The visitor authentication of a `visitor-auth` site: the backend that signs visitors in, and the key it signs
         *     their JWTs with (HS256). The backend signs a JWT with `exp` (and any claims) and sends the visitor to the
         *     site's address with `?jwt_token=<jwt>`.
         */
        SiteVisitorAuth: {
            /** @constant */
            readonly object: "site-visitor-auth";
            /**
             * Format: uri
             * @description The address visitors are sent to to sign in, with `?location=<address they asked for>`.
             */
            backendUrl: string;
            /** @constant */
            readonly algorithm: "HS256";
            /** @description The 256-bit key, base64url, that the backend signs JWTs with. Kept sealed. */
            readonly signingKey: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        /** @description A single sign-on entry point of an organization, as shown on a login page. */
        SSOProviderLogin: {
            /** @description Id of the SAML provider. */
            readonly id: string;
            /** @description Name of the provider. */
            readonly label: string;
            /**
             * Format: uri
             * @description URL that starts a sign-in through this provider.
             */
            readonly startURL: string;
        };
        /** @description One page of teams. */
        TeamList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Team"][];
        };
        /** @description A member of a team, with their role in it. */
        TeamMembership: {
            organization: components["schemas"]["Member"];
            /** @description The membership in the team. */
            team: {
                role: components["schemas"]["TeamMemberRole"];
            };
            /** @description What the caller may do with this team member. */
            readonly permissions: {
                /** @description The caller may see this member. */
                view: boolean;
            };
        };
        /** @description One page of the members of a team. */
        TeamMembershipList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["TeamMembership"][];
        };
        /**
         * @description The forms of one term, by language code: a BCP 47 language tag (for example `en`, `fr`, `pt-BR`,
         *     `zh-Hant`), answered in its canonical form. Each form is one line of 1 to 255 characters. At most 100
         *     languages.
         */
        GlossaryTranslations: {
            [key: string]: string;
        };
        /** @description One term of the translation glossary of an organization, with its agreed form in each language. Translations of content use these forms. */
        GlossaryEntry: {
            /**
             * @description Type of the object, always `glossary-entry`.
             * @constant
             */
            readonly object: "glossary-entry";
            /** @description Opaque identifier of the entry. */
            readonly id: string;
            translations: components["schemas"]["GlossaryTranslations"];
            /**
             * Format: date-time
             * @description When the entry was created.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the translations of the entry last changed.
             */
            readonly updatedAt: string;
            /** @description Links to the entry. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the entry.
                 */
                location: string;
            };
        };
        /** @description A page of glossary entries. */
        GlossaryEntryList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["GlossaryEntry"][];
        };
        /** @description One change to the glossary, inside a batch. */
        GlossaryOperation: {
            /**
             * @description Adds a new entry.
             * @constant
             */
            type: "insert";
            translations: components["schemas"]["GlossaryTranslations"];
        } | {
            /**
             * @description Replaces the translations of an existing entry.
             * @constant
             */
            type: "update";
            /** @description Id of the entry to update. */
            id: string;
            translations: components["schemas"]["GlossaryTranslations"];
        } | {
            /**
             * @description Removes an entry; removing an absent entry is not an error.
             * @constant
             */
            type: "delete";
            /** @description Id of the entry to delete. */
            id: string;
        };
        /**
         * @description An entry of the page tree of a revision, told apart by `type`:
         *     - `document`: a page with content, which may hold child pages.
         *     - `group`: a titled group of pages without content of its own.
         *     - `link`: an entry of the table of contents that points elsewhere (`href`); it has no content and no children.
         *     - `computed`: a page whose content is generated from a source (`computed`), for example an OpenAPI
         *       specification. Computed pages are answered as the pages they produce unless `computed` is false in the
         *       query, in which case they are answered as their definition with this type.
         *
         *     A page read on its own includes its content: `markdown` holds it as Markdown text (with `format`
         *     `markdown` or no `format`), `document` as a rich document (with `format` `document`). Lists of pages and
         *     revisions never include it.
         */
        RevisionPage: {
            /** @description Opaque identifier of the page, stable across revisions. */
            readonly id: string;
            /** @description Title of the page. */
            title: string;
            /**
             * @description Kind of entry (see above).
             * @enum {string}
             */
            type: "document" | "group" | "link" | "computed";
            /**
             * @deprecated
             * @description The public API's older name of `type`, which its typed clients still require: `sheet` for document
             *     pages, `group` and `link` for the others; absent on computed pages shown as their definition.
             *     Use `type`.
             * @enum {string}
             */
            kind?: "sheet" | "group" | "link";
            /** @description Last segment of the page's path; present on document, group and computed pages. */
            slug?: string;
            /** @description Path of the page within the space, its ancestors' slugs and its own joined by `/`; present on document, group and computed pages. */
            path?: string;
            /** @description Short summary of the page, shown under its title. */
            description?: string;
            /** @description Emoji shown next to the title. */
            emoji?: string;
            /** @description Name of the icon shown next to the title. */
            icon?: string;
            /** @description True when the page is left out of the table of contents of the published site (it stays reachable by its URL). */
            hidden: boolean;
            /** @description True when the page is left out of the site's own search. */
            noIndex?: boolean;
            /** @description True when search engines are asked not to index the page. */
            noRobotsIndex?: boolean;
            /** @description For `link` entries, where the link goes (an absolute URL or a Quire location). Not in the interface document; listed by the facts of the public API and needed to make use of link entries. */
            href?: string;
            /** @description The child pages, in order; empty when there are none (always for `link` entries). */
            pages: components["schemas"]["RevisionPage"][];
            /** @description The content of the page as Markdown; when a document (or computed) page is read on its own with `format` `markdown` or without `format`. */
            markdown?: string;
            /** @description The content of the page as a rich document; only when `format` is `document` and the page is a document (or computed) page. */
            document?: components["schemas"]["JSONDocument"];
            /**
             * @description How the page is laid out on the published site; present on document pages, always with every option
             *     (the options never set have their default: width `default`, cover size `hero`, everything shown).
             */
            layout?: {
                /**
                 * @description Width of the content column.
                 * @enum {string}
                 */
                width?: "default" | "wide";
                /** @description Whether the cover image is shown. */
                cover?: boolean;
                /**
                 * @description Size of the cover, `hero` (a banner) or `full` (the full width of the page).
                 * @enum {string}
                 */
                coverSize?: "hero" | "full";
                /** @description Whether the title is shown. */
                title?: boolean;
                /** @description Whether the description is shown. */
                description?: boolean;
                /** @description Whether the table of contents of the site is shown next to the page. */
                tableOfContents?: boolean;
                /** @description Whether the outline of the page's headings is shown. */
                outline?: boolean;
                /** @description Whether links to the previous and next pages are shown. */
                pagination?: boolean;
                /** @description Whether page metadata (such as the last update date) is shown. */
                metadata?: boolean;
            };
            /** @description Cover image of the page; absent when it has none. */
            cover?: {
                /** @description The file of the space shown as cover. */
                ref: {
                    /** @constant */
                    kind: "file";
                    /** @description Id of a file of the space. */
                    file: string;
                };
                /** @description The file shown as cover in dark mode, if different. */
                refDark?: {
                    /** @constant */
                    kind: "file";
                    /** @description Id of a file of the space. */
                    file: string;
                };
                /** @description Vertical offset of the image within the cover, in pixels. */
                yPos?: number;
                /** @description Height of the cover in pixels. */
                height?: number;
            };
            /** @description Variables defined for this page, by name. */
            variables?: {
                [key: string]: string;
            };
            /** @description For computed pages, the source their content is generated from. */
            computed?: {
                /** @description Kind of source, for example `builtin:openapi` for pages generated from an OpenAPI specification. */
                type: string;
                /** @description Content the source reads, by name; for example `spec` pointing at an OpenAPI specification. */
                dependencies?: {
                    [key: string]: {
                        ref: components["schemas"]["ContentRef"];
                    };
                };
                /** @description Settings of the source, for example `doc` naming the part of the specification to render. */
                props?: {
                    [key: string]: unknown;
                };
            };
            /** @description For computed pages, a seed that keeps the ids of generated pages stable between computations. */
            computedSeed?: string;
            /** @description Where the page lives in the synchronized Git repository; absent when the space is not synchronized or when `metadata` is false. */
            readonly git?: {
                /** @description Git object id of the page's file. */
                oid: string;
                /** @description Path of the page's file in the repository. */
                path: string;
            };
            /** @description Links to the page. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description URL of the page in the Quire app.
                 */
                app: string;
            };
            /**
             * Format: date-time
             * @description When the page was created; present on document and computed pages.
             */
            readonly createdAt?: string;
            /**
             * Format: date-time
             * @description When the page last changed; present on document and computed pages.
             */
            readonly updatedAt?: string;
        };
        /** @description A reference to a piece of content that lives outside a page. */
        ContentRef: {
            /** @constant */
            kind: "file";
            /** @description Id of a file of the space. */
            file: string;
        } | {
            /** @constant */
            kind: "openapi";
            /** @description Id or slug of an OpenAPI specification of the organization (`/orgs/{organizationId}/openapi`). Content computed from it (such as the `openapi-reference` template) reads its latest version; a specification without a version yet answers 400 there, and is a broken link in link checks. */
            spec: string;
        };
        /** @description A file (image, attachment...) stored in a revision of a space's content. */
        RevisionFile: {
            /** @description Opaque identifier of the file, stable across revisions. */
            readonly id: string;
            /** @description File name, with its extension. */
            name: string;
            /** @description Media type of the file, for example `image/png`. */
            contentType: string;
            /**
             * Format: uri
             * @description URL the file's bytes can be downloaded from.
             */
            readonly downloadURL: string;
            /** @description Size of the file in bytes. */
            readonly size: number;
            /** @description Size of the image in pixels; present only for images whose size is known. */
            readonly dimensions?: {
                /** @description Width in pixels. */
                width: number;
                /** @description Height in pixels. */
                height: number;
            };
            /** @description Where the file lives in the synchronized Git repository; absent when the space is not synchronized or when `metadata` is false. */
            readonly git?: {
                /** @description Git object id of the file's blob. */
                oid: string;
                /** @description Path of the file in the repository. */
                path: string;
            };
        };
        /**
         * @description An immutable snapshot of the content of a space (or of a change request): its page tree, its files and its
         *     reusable content. Every edit produces a new revision.
         */
        Revision: {
            /** @constant */
            readonly object: "revision";
            /** @description Opaque identifier of the revision. */
            readonly id: string;
            /**
             * @description How the revision was made: `edits`, by edits to the content (directly, through a template or an
             *     import); `merge`, by merging a change request into the main content; `rollback`, by restoring an earlier
             *     revision; `update`, by pulling the main content into a change request; `computed`, by computing content
             *     from a source (for example a Git import).
             * @enum {string}
             */
            readonly type: "edits" | "merge" | "rollback" | "update" | "computed";
            /** @description On a `merge` revision, the change request whose merge made it (the public API requires it there); absent otherwise. */
            mergedFrom?: components["schemas"]["ChangeRequest"];
            /** @description Ids of the revisions this one was made from; empty for the first revision of a space, two for a merge. */
            readonly parents: string[];
            /** @description The top-level pages, in order, each holding its child pages. */
            readonly pages: components["schemas"]["RevisionPage"][];
            /** @description Every file of the revision. */
            readonly files: components["schemas"]["RevisionFile"][];
            /** @description Blocks of content that pages of the revision can include by reference. */
            readonly reusableContents: {
                /** @description Opaque identifier of the reusable content. */
                id: string;
                /** @description Title of the reusable content. */
                title: string;
                /** @description Where the reusable content lives in the synchronized Git repository; absent when not synchronized or when `metadata` is false. */
                git?: {
                    /** @description Git object id of the blob. */
                    oid: string;
                    /** @description Path of the file in the repository. */
                    path: string;
                };
            }[];
            /** @description Variables defined for the whole space, by name; empty when there are none. */
            readonly variables: {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description When the revision was made.
             */
            readonly createdAt: string;
            /** @description The Git commit the revision corresponds to; absent when the space is not synchronized with Git or when `metadata` is false. */
            readonly git?: {
                /** @description Id (hash) of the commit. */
                oid: string;
                /** @description Commit message. */
                message: string;
                /** @description True when Quire made the commit (an export), false when it came from the repository (an import). */
                createdByService: boolean;
                /**
                 * Format: uri
                 * @description URL of the commit in the repository's web interface.
                 */
                url?: string;
                /** @description Git reference the commit was made on, for example `refs/heads/main`. */
                ref?: string;
            };
            /** @description Links to the revision. */
            readonly urls: {
                /**
                 * Format: uri
                 * @description URL of the revision in the Quire app.
                 */
                app: string;
                /**
                 * Format: uri
                 * @description URL of the revision on the published site, when the space is published.
                 */
                published?: string;
                /**
                 * Format: uri
                 * @description Public URL of the revision, when the space is visible without signing in.
                 */
                public?: string;
            };
        };
        /**
         * @description New content for a page, written as Markdown (CommonMark with GitHub tables, task lists and strikethrough).
         *     It replaces the whole content of the page. Links are resolved when stored: `/pages/<page id>` and paths of
         *     pages of the space become page links, `/files/<file id>` becomes a file link (images included), and
         *     `ref:<label>` points at a page or file created earlier in the same batch under that `ref`. Other URLs stay
         *     as they are.
         */
        PageDocumentInput: {
            /** @description The content of the page as Markdown, at most 1,000,000 characters. An empty string empties the page. */
            markdown: string;
        };
        /**
         * @description One edit of a batch applied to the content of a change request, told apart by `operation`: insert a page,
         *     update a page, delete a page, or insert files.
         */
        ChangeRequestContentChange: {
            /** @constant */
            operation: "insert_page";
            /** @description Title of the new page. */
            title: string;
            /** @description Content of the new page. */
            document: components["schemas"]["PageDocumentInput"];
            /** @description Last segment of the page's path, lower-case words joined by hyphens; made from the title when omitted. Must be unique among its siblings. */
            slug?: string;
            /** @description Emoji shown next to the title. */
            emoji?: string;
            /** @description Short summary shown under the title. */
            description?: string;
            /** @description Id of the page (document or group) to insert the new page under, or `null` (the default) for the top level. May be the `ref` of a page inserted earlier in the batch. */
            into?: string | null;
            /** @description Position among its new siblings, 0 for first; omitted or past the end puts it last. */
            at?: number;
            /** @description A label of the caller's choosing, unique in the batch, repeated in the answer next to the new page's id and usable as `into` and in `ref:<label>` links by later changes of the batch. */
            ref?: string;
        } | {
            /** @constant */
            operation: "update_page";
            /** @description Id of the page to change (or the `ref` of a page inserted earlier in the batch). At least one other field must be given. */
            page: string;
            /** @description New content, replacing the whole content of the page. Only for document pages. */
            document?: components["schemas"]["PageDocumentInput"];
            /** @description New title. */
            title?: string;
            /** @description New last segment of the page's path, lower-case words joined by hyphens; must be unique among its siblings. Changes the paths of its descendants too. */
            slug?: string;
            /** @description New emoji, or `null` to remove it. */
            emoji?: string | null;
            /** @description New summary, or `null` to remove it. */
            description?: string | null;
            /** @description Whether the page is left out of the table of contents of the published site. */
            hidden?: boolean;
            /** @description Moves the page (with its descendants) under this page, or to the top level with `null`. Omitted, the page keeps its parent. It cannot be moved under itself or one of its descendants. */
            into?: string | null;
            /** @description New position among its siblings (in its new parent when `into` is given, else its current one), 0 for first; past the end puts it last. */
            at?: number;
        } | {
            /** @constant */
            operation: "delete_page";
            /** @description Id of the page to delete, with all its descendants. */
            page: string;
        } | {
            /** @constant */
            operation: "insert_files";
            /** @description The files to add to the content, each given either inline as `base64` or by a `url` Quire downloads it from (exactly one of the two). */
            files: ({
                /** @description File name, with its extension. */
                name: string;
                /** @description Media type of the file; guessed from the name and the bytes when omitted. */
                contentType?: string;
                /** @description A label of the caller's choosing, unique in the batch, usable in `ref:<label>` links by later changes of the batch. */
                ref?: string;
                /** @description The bytes of the file, base64-encoded; at most 1 MB once decoded. */
                base64: string;
            } | {
                /** @description File name, with its extension. */
                name: string;
                /** @description Media type of the file; taken from the download when omitted. */
                contentType?: string;
                /** @description A label of the caller's choosing, unique in the batch, usable in `ref:<label>` links by later changes of the batch. */
                ref?: string;
                /**
                 * Format: uri
                 * @description An http or https URL Quire downloads the file from; the download must not exceed 1 MB.
                 */
                url: string;
            })[];
        };
        /** @description The result of a batch of content changes applied to a change request. */
        ChangeRequestContentUpdate: {
            /** @description The change request after the batch; its `revision` is the new revision holding every change. */
            changeRequest: components["schemas"]["ChangeRequest"];
            /** @description One entry per page change of the batch (`insert_page`, `update_page`, `delete_page`), in the order of the request. */
            readonly changes: {
                /**
                 * @description What happened to the page.
                 * @enum {string}
                 */
                object: "created_page" | "updated_page" | "deleted_page";
                /** @description Id of the page; for an inserted page, the id it was given. */
                page: string;
                /** @description The `ref` the change carried, if any. */
                ref?: string;
            }[];
            /** @description The files added by `insert_files` changes, in the order of the request; absent when the batch added none. */
            readonly insertedFiles?: components["schemas"]["RevisionFile"][];
        };
        /** @description One page of the list of files of a revision. */
        RevisionFileList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["RevisionFile"][];
        };
        /**
         * @description A place in Quire content, told apart by `kind`: a file, page or reusable content of a space (in a given
         *     revision), a whole space, a collection, an OpenAPI specification, a user, or an external URL. Used as the
         *     source and target of links and as the items of backlink lists. As in the public API, the organization,
         *     space, revision, page and file are embedded objects, not ids.
         */
        ContentLocation: {
            /** @constant */
            kind: "file";
            organization: components["schemas"]["Organization"];
            space: components["schemas"]["Space"];
            /** @description The revision the location was found in. */
            versionContext?: {
                /** @constant */
                type: "revision";
                revision: components["schemas"]["Revision"];
            };
            /** @description The file; only its id when the revision has no such file (the target of a broken link). */
            file: components["schemas"]["RevisionFile"] | string;
        } | {
            /** @constant */
            kind: "page";
            organization: components["schemas"]["Organization"];
            space: components["schemas"]["Space"];
            /** @description The revision the location was found in. */
            versionContext?: {
                /** @constant */
                type: "revision";
                revision: components["schemas"]["Revision"];
            };
            /** @description The page; only its id when the revision has no such page (the target of a broken link). */
            page: components["schemas"]["RevisionPage"] | string;
        } | {
            /** @constant */
            kind: "reusable-content";
            organization: components["schemas"]["Organization"];
            space: components["schemas"]["Space"];
            /** @description The revision the location was found in. */
            versionContext?: {
                /** @constant */
                type: "revision";
                revision: components["schemas"]["Revision"];
            };
            /** @description Id of the reusable content. */
            reusableContent: string;
        } | {
            /** @constant */
            kind: "space";
            organization: components["schemas"]["Organization"];
            space: components["schemas"]["Space"];
        } | {
            /** @constant */
            kind: "collection";
            organization: components["schemas"]["Organization"];
            /** @description Id of the collection. */
            collection: string;
        } | {
            /** @constant */
            kind: "openapi";
            organization: components["schemas"]["Organization"];
            /** @description Id of the OpenAPI specification. */
            spec: string;
        } | {
            /** @constant */
            kind: "user";
            /** @description Id of the user. */
            user: string;
        } | {
            /** @constant */
            kind: "url";
            /** @description The URL, as written in the content. */
            url: string;
        };
        /** @description One page of the list of places that link to a page or file. */
        BacklinkList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            /** @description The locations (pages or reusable contents, in this or another space) holding a link to the target. */
            items: components["schemas"]["ContentLocation"][];
        };
        /** @description A link found in content, where it points and where it is used. */
        ContentReferenceUsage: {
            /**
             * @description Health of the link: `ok`, it works; `broken`, its target is absent from the revision (a deleted page or
             *     file, for example); `in-app`, it is a URL pointing at a location inside the Quire app, which readers of
             *     the published content may not reach.
             * @enum {string}
             */
            readonly status: "ok" | "broken" | "in-app";
            /**
             * @description How the content uses the target, `reference` for a link or embed, `dependsOn` when the content is generated from the target (a computed page depending on an OpenAPI specification, for example).
             * @enum {string}
             */
            readonly relation: "reference" | "dependsOn";
            /** @description What the link points at. */
            targetReference: components["schemas"]["ContentLocation"];
            /** @description Where the link is used (the pages or reusable contents holding it). */
            readonly locationReferences: components["schemas"]["ContentLocation"][];
        };
        /** @description One page of a list of links found in content, with counts over the whole list. */
        ContentLinkList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list (after the `status` filter, if any). */
            count?: number;
            items: components["schemas"]["ContentReferenceUsage"][];
            /** @description Counts over every link in scope, whatever the filter and the page. */
            readonly stats: {
                /** @description Number of links. */
                total: number;
                /** @description Counts of broken links. */
                broken: {
                    /** @description Number of broken links. */
                    total: number;
                    /** @description In the lists of a change request, the number of broken links the change request introduces (broken there but not in the main content); absent elsewhere. */
                    changeRequest?: number;
                };
            };
        };
        /** @description The page tree of a revision. */
        RevisionPageList: {
            /** @description The top-level pages, in order, each holding its child pages in `pages`. */
            pages: components["schemas"]["RevisionPage"][];
        };
        /**
         * @description A page that was changed both in the change request and in the main content since the change request
         *     started (or was last updated), in ways that cannot be combined automatically. A page conflicting in several
         *     ways appears once per `kind`.
         */
        ChangeRequestConflict: {
            /** @description Id of the conflicting page. */
            readonly page: string;
            /** @description Path of the page in the change request's content (or in the main content, when the change request deleted it). */
            readonly path: string;
            /** @description Title of the page in the change request's content (or in the main content, when the change request deleted it). */
            readonly title: string;
            /**
             * @description What conflicts: `content`, the same part of the page's document was edited differently on both sides;
             *     `title`, the title was changed to different values on both sides; `properties`, another setting of the
             *     page (slug, emoji, icon, description, hidden, indexing, layout, cover) was changed to different values on
             *     both sides; `structure`, the page was moved to different places (parent or position) on both sides;
             *     `deleted`, the page was deleted on one side and changed on the other.
             * @enum {string}
             */
            readonly kind: "content" | "title" | "properties" | "structure" | "deleted";
        };
        /** @description The outcome of the merge of a change request, told apart by `result`. */
        ChangeRequestMergeResult: {
            /** @description Id of the new main-content revision the merge produced (also set as `revisionMerged` of the change request). */
            readonly revision: string;
            /**
             * @description Always `merge` for this outcome.
             * @constant
             */
            readonly result: "merge";
        } | {
            /** @description Id of the current main-content revision of the space, unchanged. */
            readonly revision: string;
            /**
             * @description Always `conflicts` for this outcome.
             * @constant
             */
            readonly result: "conflicts";
            /** @description The conflicting pages. */
            readonly conflicts: components["schemas"]["ChangeRequestConflict"][];
        };
        /** @description The outcome of the update of a change request, told apart by `result`. */
        ChangeRequestUpdateResult: {
            /** @description Id of the new revision of the change request's content, holding its edits on top of the latest main content. */
            readonly revision: string;
            /**
             * @description Always `update` for this outcome.
             * @constant
             */
            readonly result: "update";
        } | {
            /** @description Id of the current revision of the change request's content, unchanged. */
            readonly revision: string;
            /**
             * @description Always `conflicts` for this outcome.
             * @constant
             */
            readonly result: "conflicts";
            /** @description The conflicting pages. */
            readonly conflicts: components["schemas"]["ChangeRequestConflict"][];
        };
        /**
         * @description A request for a review of a change request: who was asked, who asked, and on which revision of the change
         *     request. Requests name users (`kind` is `user`); the public API also has requests of teams (`kind` `team`
         *     with `team`), which Quire does not make.
         */
        ChangeRequestRequestedReviewer: {
            /** @constant */
            readonly object: "change-request-requested-reviewer";
            /**
             * @description What was asked for a review; always a user here.
             * @constant
             */
            readonly kind: "user";
            /** @description The member asked for a review. */
            user: components["schemas"]["User"];
            /** @description The member who asked for the review. */
            requestedBy: components["schemas"]["User"];
            /** @description Id of the change request's revision when the review was asked for. */
            readonly revision: string;
            /**
             * Format: date-time
             * @description When the review was asked for. Asking the same member again keeps the first request.
             */
            readonly createdAt: string;
        };
        /** @description One page of the requested reviewers of a change request, in the order they were asked. */
        ChangeRequestRequestedReviewerList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ChangeRequestRequestedReviewer"][];
        };
        /**
         * @description What a review says about a change request.
         * @enum {string}
         */
        ChangeRequestReviewStatus: "approved" | "changes-requested";
        /** @description One emoji reaction on a comment or a reply, with the people who reacted with it. */
        CommentReaction: {
            /** @description The emoji of the reaction. */
            readonly emoji: string;
            /** @description How many people reacted with this emoji. */
            readonly count: number;
            /** @description The people who reacted with this emoji, with when they did. */
            readonly users: {
                user: components["schemas"]["User"];
                /**
                 * Format: date-time
                 * @description When this person added the reaction.
                 */
                readonly reactedAt: string;
            }[];
        };
        /**
         * @description The content of a comment or a reply, in one of three forms: `{markdown}` (Markdown text), `{document}` (a
         *     rich document tree) or `{}` (no content). In a request, either filled form is accepted and stored. In an
         *     answer, the form follows the `format` query parameter: `markdown` answers `{markdown}`, `document` answers
         *     `{document}`; without `format` the body is answered in the form it was written in. An empty body is always
         *     answered as `{}`.
         */
        CommentBody: {
            /** @description The content as Markdown text. */
            markdown: string;
        } | {
            document: components["schemas"]["JSONDocument"];
        } | Record<string, never>;
        /**
         * @description A discussion started on a space: on the space as a whole, on one of its pages, on a block (node) of a page,
         *     on a cell of a table block, or on a change request. `status` is `open` until someone resolves the comment;
         *     `resolvedAt` and `resolvedBy` are present exactly when it is `resolved`.
         */
        Comment: {
            /** @constant */
            readonly object: "comment";
            /** @description Opaque identifier of the comment. */
            readonly id: string;
            /** @description The author of the comment. */
            postedBy: components["schemas"]["User"];
            /**
             * Format: date-time
             * @description When the comment was posted.
             */
            readonly postedAt: string;
            /**
             * Format: date-time
             * @description When the body of the comment was last changed; absent when it never was.
             */
            readonly editedAt?: string;
            /** @description The emoji reactions on the comment, one item per emoji. */
            readonly reactions: components["schemas"]["CommentReaction"][];
            /** @description Number of replies to the comment. */
            readonly replies: number;
            /** @description The people who replied, one item per person. */
            readonly repliers: {
                /**
                 * Format: date-time
                 * @description When this person last replied.
                 */
                updatedAt: string;
                /** @description How many replies this person posted. */
                count: number;
                user: components["schemas"]["User"];
            }[];
            body: components["schemas"]["CommentBody"];
            /** @description What the comment is about. `space` and `revision` are always given; the other keys narrow the target. */
            readonly target: {
                /** @description The block of the page the comment is attached to. */
                node?: {
                    /** @description Id (key) of the block in the page document. */
                    id: string;
                };
                /** @description The cell of a table block the comment is attached to. */
                tableCell?: {
                    /** @description Id of the table row (record). */
                    record: string;
                    /** @description Id of the table column (definition). */
                    definition: string;
                };
                /** @description Id of the change request the comment was posted on. */
                changeRequest?: string;
                /** @description Id of the change request review the comment belongs to. */
                review?: string;
                /** @description The page the comment is attached to. */
                page?: {
                    /** @description Id of the page. */
                    id: string;
                };
                /** @description Id of the space the comment belongs to. */
                space: string;
                /** @description Id of the revision the comment was posted on. */
                revision: string;
            };
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the comment.
                 */
                location: string;
            };
            /** @description What the caller may do with this comment. */
            readonly permissions: {
                /** @description The caller can read the comment. */
                view: boolean;
                /** @description The caller can change the body of the comment (only its author can). */
                edit: boolean;
                /** @description The caller can reply to the comment. */
                reply: boolean;
                /** @description The caller can delete the comment (its author, or an admin of the space). */
                delete: boolean;
            };
            /**
             * @description `open` until the comment is resolved; set with `resolved` on the update operation.
             * @enum {string}
             */
            readonly status: "open" | "resolved";
            /**
             * Format: date-time
             * @description When the comment was resolved; present only when `status` is `resolved`.
             */
            readonly resolvedAt?: string;
            /** @description Who resolved the comment; present only when `status` is `resolved`. */
            resolvedBy?: components["schemas"]["User"];
        };
        /**
         * @description A review of a change request by a member of the organization. A review belongs to the revision of the
         *     change request it was given on: once the change request's content changes again (an edit or an update
         *     from main), the review is `outdated`. Outdated reviews are still listed but no merge rule counts them.
         */
        ChangeRequestReview: {
            /** @constant */
            readonly object: "change-request-review";
            /** @description Opaque identifier of the review. */
            readonly id: string;
            status: components["schemas"]["ChangeRequestReviewStatus"];
            /** @description The member who gave the review. */
            reviewer: components["schemas"]["User"];
            /** @description Id of the change request's revision the review was given on. */
            readonly revision: string;
            /** @description True when the change request's content changed since the review was given. */
            readonly outdated: boolean;
            /** @description The member who had asked the reviewer for this review; absent when the review was given unasked. */
            requestedBy?: components["schemas"]["User"];
            /**
             * @description What the reviewer wrote with the review: a discussion comment of the change request (its `target.review`
             *     is this review's id), listed with the space's comments, which can be replied to, resolved and deleted.
             *     Its body is in the form it was written in. Absent when nothing was written, or once the comment is deleted.
             */
            comment?: components["schemas"]["Comment"];
            /**
             * Format: date-time
             * @description When the review was given.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the review was last changed; a review is never edited, so this is when it was given.
             */
            readonly updatedAt: string;
            readonly urls: {
                /**
                 * Format: uri
                 * @description URL of the review in the API.
                 */
                location: string;
            };
        };
        /** @description One page of the reviews of a change request, oldest first. */
        ChangeRequestReviewList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ChangeRequestReview"][];
        };
        /** @description One page of a list of comments. */
        CommentList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Comment"][];
        };
        /** @description A reply in the discussion of a comment. */
        CommentReply: {
            /** @constant */
            readonly object: "comment-reply";
            /** @description Opaque identifier of the reply. */
            readonly id: string;
            /** @description The author of the reply. */
            postedBy: components["schemas"]["User"];
            /**
             * Format: date-time
             * @description When the reply was posted.
             */
            readonly postedAt: string;
            /**
             * Format: date-time
             * @description When the body of the reply was last changed; absent when it never was.
             */
            readonly editedAt?: string;
            /** @description The emoji reactions on the reply, one item per emoji. */
            readonly reactions: components["schemas"]["CommentReaction"][];
            body: components["schemas"]["CommentBody"];
            readonly urls: {
                /**
                 * Format: uri
                 * @description API URL of the reply.
                 */
                location: string;
            };
            /** @description What the caller may do with this reply. */
            readonly permissions: {
                /** @description The caller can read the reply. */
                view: boolean;
                /** @description The caller can change the body of the reply (only its author can). */
                edit: boolean;
                /** @description The caller can delete the reply (its author, or an admin of the space). */
                delete: boolean;
            };
        };
        /** @description One page of a list of comment replies. */
        CommentReplyList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["CommentReply"][];
        };
        /** @description What to export the space to, a branch of a Git repository, and the message of the commit to create. */
        ExportGitRepositoryBody: {
            /**
             * Format: uri
             * @description URL of the Git repository. It may embed basic-auth credentials (`https://user:token@host/owner/repo.git`);
             *     they are used to reach the repository for this operation only, and are never stored nor answered.
             */
            url: string;
            /** @description The branch to sync with, written as a full ref, for example `refs/heads/main`. */
            ref: string;
            /** @description Message of the commit that holds the exported content. */
            commitMessage: string;
            /** @description Key of a cached clone of the repository to reuse between operations (kept for compatibility; optional). */
            repoCacheID?: string;
            /**
             * Format: uri
             * @description URL prefix used to build links to files of the repository (external file references).
             */
            repoTreeURL?: string;
            /**
             * Format: uri
             * @description URL prefix used to build links to commits of the repository.
             */
            repoCommitURL?: string;
            /** @description Directory of the repository, relative to its root, that holds the content of the space. Without it, the root. */
            repoProjectDirectory?: string;
            /**
             * Format: date-time
             * @description When the change that triggered this operation happened. It orders the sync operations of the space: an
             *     operation older than one already run on the space is refused with 409. Without it, no ordering check is
             *     made.
             */
            timestamp?: string;
            /**
             * @description Export even when the branch has commits the space has not imported; they are overwritten (like a force push).
             * @default false
             */
            force: boolean;
            /**
             * @description When true, the export is a one-off snapshot, and the space does not become linked to the repository.
             * @default false
             */
            standalone: boolean;
            /** @description The Git provider and repository to record as the sync settings of the space (kept for compatibility; optional). */
            gitInfo?: {
                /**
                 * @description The Git provider hosting the repository.
                 * @enum {string}
                 */
                provider?: "github" | "gitlab";
                /**
                 * Format: uri
                 * @description URL of the repository as shown to people; must not embed credentials.
                 */
                url?: string;
            };
        };
        /**
         * @description What to import: a branch of a Git repository, turned into the content of the space (or into a standalone
         *     revision).
         */
        ImportGitRepositoryBody: {
            /**
             * Format: uri
             * @description URL of the Git repository. It may embed basic-auth credentials (`https://user:token@host/owner/repo.git`);
             *     they are used to reach the repository for this operation only, and are never stored nor answered.
             */
            url: string;
            /** @description The branch to sync with, written as a full ref, for example `refs/heads/main`. */
            ref: string;
            /** @description Key of a cached clone of the repository to reuse between operations (kept for compatibility; optional). */
            repoCacheID?: string;
            /**
             * Format: uri
             * @description URL prefix used to build links to files of the repository (external file references).
             */
            repoTreeURL?: string;
            /**
             * Format: uri
             * @description URL prefix used to build links to commits of the repository.
             */
            repoCommitURL?: string;
            /** @description Directory of the repository, relative to its root, that holds the content of the space. Without it, the root. */
            repoProjectDirectory?: string;
            /**
             * Format: date-time
             * @description When the change that triggered this operation happened. It orders the sync operations of the space: an
             *     operation older than one already run on the space is refused with 409. Without it, no ordering check is
             *     made.
             */
            timestamp?: string;
            /**
             * @description Import even when the commit at `ref` is the one already imported, rebuilding the content from it.
             * @default false
             */
            force: boolean;
            /**
             * @description When true, the import creates a revision of the space without making it the primary content.
             * @default false
             */
            standalone: boolean;
            /** @description The Git provider and repository to record as the sync settings of the space (kept for compatibility; optional). */
            gitInfo?: {
                /**
                 * @description The Git provider hosting the repository.
                 * @enum {string}
                 */
                provider?: "github" | "gitlab";
                /**
                 * Format: uri
                 * @description URL of the repository as shown to people; must not embed credentials.
                 */
                url?: string;
            };
        };
        /** @description A page matching a search, with the sections of it that match. */
        SearchResult: {
            /** @description Id of the page. */
            readonly id: string;
            /** @description Title of the page. */
            readonly title: string;
            /** @description Path of the page within the space. */
            readonly path: string;
            /** @description The parts of the page (under a heading) that match, best match first. */
            readonly sections: {
                /** @description Id of the section (the anchor of its heading). */
                id: string;
                /** @description Title of the heading the section starts with; empty for the part before the first heading. */
                title: string;
                /** @description Path of the section, the page's path followed by `#` and the anchor. */
                path: string;
                /** @description Text of the section around the match. */
                body: string;
                urls: {
                    /**
                     * Format: uri
                     * @description URL of the section in the Quire app.
                     */
                    app: string;
                };
            }[];
            /** @description The pages above the page in the tree, from the top-level page down to its parent. */
            readonly ancestors: {
                /** @description Title of the ancestor page. */
                title: string;
            }[];
            readonly urls: {
                /**
                 * Format: uri
                 * @description URL of the page in the Quire app.
                 */
                app: string;
            };
        };
        /** @description One page of the results of a search, best match first. */
        SearchResultList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SearchResult"][];
        };
        /**
         * @description What a published address shows: the ids of the site, section, site space, space and revision, how the
         *     address splits into the site's path, the site space's path and the page path, and a visitor token to read
         *     that content with.
         */
        PublishedContentLookup: {
            /** @constant */
            readonly object: "published-content-lookup";
            /** @description Id of the organization that owns the site. */
            readonly organization: string;
            /** @description Id of the site. */
            readonly site: string;
            /** @description Id of the section the address is in; present when the site has sections. */
            readonly siteSection?: string;
            /** @description Id of the site space the address is in. */
            readonly siteSpace: string;
            /** @description Id of the space that site space publishes. */
            readonly space: string;
            /** @description Id of the space's current revision, the content the address shows. */
            readonly revision: string;
            visibility: components["schemas"]["SiteVisibility"];
            /** @description Path of the site on its host, e.g. `/sites/docs`; empty for a site served by its hostname. */
            readonly siteBasePath: string;
            /** @description Path of the site space's address on its host (the site's path, then the section and site-space paths). */
            readonly basePath: string;
            /** @description The rest of the path, the page path inside the site space; empty for its first page. */
            readonly pathname: string;
            /** @description Whether the address named the section and site space itself, rather than reaching them as defaults. */
            readonly complete: boolean;
            /**
             * Format: uri
             * @description The address without any secret (no share key, JWT or visitor claim).
             */
            readonly canonicalUrl: string;
            /**
             * @description Visitor token, sent as `Authorization: Bearer <apiToken>`: accepted only by reads of this site's published
             *     content, for the site spaces this visitor sees, and refused at once when the site is unpublished, its
             *     visibility changes or the share link used is deactivated or deleted.
             */
            readonly apiToken: string;
            /**
             * Format: date-time
             * @description When `apiToken` stops working (15 minutes after it was issued).
             */
            readonly apiTokenExpiresAt: string;
        };
        /** @description Where to send a visitor before the address can be read. */
        PublishedContentRedirect: {
            /** @constant */
            readonly object: "published-content-redirect";
            /**
             * @description `visitor-auth`: the site needs a JWT from its visitor-authentication backend.
             * @enum {string}
             */
            readonly reason: "visitor-auth";
            /**
             * @description The redirect leaves Quire (the organization's own backend).
             * @enum {string}
             */
            readonly target: "external";
            /**
             * Format: uri
             * @description The backend's address with `?location=<the requested address, without secrets>`.
             */
            readonly redirect: string;
        };
        /**
         * @description A role granted directly on a space or a collection to one user or one team. Grants inherit down the tree:
         *     a grant on a collection applies to its sub-collections and spaces. A user's role on content is the
         *     highest of their organization role (through default levels), and the roles granted to them and to their
         *     teams on the content and its collections; a guest of the organization sees only what was granted.
         */
        ContentPermission: {
            /** @constant */
            readonly object: "content-permission";
            role: components["schemas"]["MemberRole"];
            /** @description The user the role is granted to (absent for a team's grant). */
            user?: components["schemas"]["User"];
            /** @description The team the role is granted to (absent for a user's grant). */
            team?: {
                /** @description Id of the team. */
                id: string;
                /** @description Name of the team. */
                title: string;
            };
        };
        /** @description One page of the roles granted on a space or a collection, teams first, then users; oldest grant first within each. */
        ContentPermissionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ContentPermission"][];
        };
    };
    responses: {
        /** @description An unexpected error, or an operation this server does not implement yet (501). The body never holds internals. */
        Unexpected: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 500,
                 *         "message": "Internal error"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request is malformed or a parameter or body field breaks the contract; the message names the field. Nothing was changed. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 400,
                 *         "message": "body.title must NOT have more than 50 characters"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is over the size limit. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 413,
                 *         "message": "Request body is larger than the limit of 2 MB"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is not sent as application/json. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 415,
                 *         "message": "Request bodies must be sent as application/json"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests from this caller; wait for `Retry-After` seconds before trying again. */
        TooManyRequests: {
            headers: {
                /** @description Seconds to wait before the next request. */
                "Retry-After"?: number;
                /** @description Requests allowed in the current window. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the current window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the window resets. */
                "RateLimit-Reset"?: number;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 429,
                 *         "message": "Too many requests, retry after 12 seconds"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The `Authorization` header is missing, or its bearer token is unknown or revoked. */
        Unauthorized: {
            headers: {
                /** @description The authentication scheme to use, `Bearer`. */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 401,
                 *         "message": "A valid bearer token is required"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Nothing matches, or the caller cannot see it (another organization's object answers exactly like a missing one). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 404,
                 *         "message": "Not found"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The caller can see the target but its role does not allow this operation. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 403,
                 *         "message": "You need the edit role on this space"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request conflicts with the current state (for example a move or transfer that changes nothing, or a duplicate). */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 409,
                 *         "message": "The space is already in this place"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The target cannot be moved or transferred as asked. */
        PreconditionFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 412,
                 *         "message": "The collection cannot be transferred"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description Id of the collection. */
        collectionId: string;
        /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
        listPage: string;
        /** @description Largest number of items to return on this page (default 50). */
        listLimit: number;
        /** @description Unique name of the integration. */
        integrationName: string;
        /** @description Id of the organization. */
        organizationId: string;
        /** @description Id of the conversation issues cluster. */
        clusterId: string;
        /** @description Id of the conversation issue. */
        issueId: string;
        /** @description Id of the conversation. */
        conversationId: string;
        /** @description Id of the user. */
        userId: string;
        /** @description Slug of the OpenAPI specification, unique within the organization. */
        specSlug: string;
        /** @description Id of the OpenAPI specification version. */
        versionId: string;
        /** @description Id of the SAML provider. */
        samlProviderId: string;
        /** @description Id of the site. */
        siteId: string;
        /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
        shareKey: string;
        /** @description Id of the site section group. */
        siteSectionGroupId: string;
        /** @description Id of the site section. */
        siteSectionId: string;
        /** @description Id of the share link. */
        shareLinkId: string;
        /** @description Id of the site space (the link between a site and a space). */
        siteSpaceId: string;
        /** @description Id of the team. */
        teamId: string;
        /** @description Id of the glossary entry. */
        glossaryEntryId: string;
        /** @description Id of the space. */
        spaceId: string;
        /** @description Id of the change request, or its number within the space. */
        changeRequestId: string;
        /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
        contentMetadata: boolean;
        /** @description When false, computed pages are answered as their source definition instead of their computed content. */
        contentComputed: boolean;
        /** @description Id of the file. */
        fileId: string;
        /** @description Id of the page. */
        pageId: string;
        /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
        documentFormat: "document" | "markdown";
        /**
         * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
         *     only expressions whose inputs are deterministic, `false` none.
         */
        documentEvaluated: boolean | "deterministic-only";
        /** @description Id of the review. */
        reviewId: string;
        /** @description Id of the comment. */
        commentId: string;
        /** @description Id of the comment reply. */
        commentReplyId: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    exchangeCliAuthCode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The one-time code the browser brought to the loopback address. */
                    code: string;
                    /** @description The loopback address the sign-in was started with, exactly as given then. */
                    redirectURI: string;
                };
            };
        };
        responses: {
            /** @description A new API token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The API token, shown this once; send it as `Authorization: Bearer <token>`. */
                        token: string;
                        /** @description Id of the organization the token acts in. */
                        organization: string;
                        /** @description Id of the user the token acts as. */
                        user: string;
                        /**
                         * Format: date-time
                         * @description When the token stops working.
                         */
                        expiresAt: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getCollectionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The collection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Collection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteCollectionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The collection is deleted, or did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateCollectionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New title of the collection. */
                    title?: string;
                    /** @description New description of the collection; an empty string removes it. */
                    description?: string;
                    defaultLevel?: components["schemas"]["DefaultLevel"];
                };
            };
        };
        responses: {
            /** @description The updated collection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Collection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    moveCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the collection to move into, or `null` for the top level of the organization. */
                    parent?: string | null;
                    position?: components["schemas"]["ContentPosition"];
                };
            };
        };
        responses: {
            /** @description The moved collection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Collection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpacesInCollectionById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the spaces of the collection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SpaceList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    transferCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the organization to transfer the collection to. */
                    organization: string;
                };
            };
        };
        responses: {
            /** @description The transferred collection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Collection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listIntegrations: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only the integrations whose name or title contains this text, ignoring case. */
                search?: string;
                /** @description Only the integrations listed in this category. */
                category?: components["schemas"]["IntegrationCategory"];
                /** @description Only the integrations with a block that unfurls links of this domain. */
                blockDomain?: string;
                /** @description `true`: only the integrations that provide blocks; `false`: only those that provide none. */
                blocks?: boolean;
                /** @description `true`: only the integrations that provide content sources; `false`: only those that provide none. */
                contentSources?: boolean;
                /** @description Only the integrations owned by the organization with this id. */
                owner?: string;
                /** @description Only the integrations that ask for this scope. */
                scope?: components["schemas"]["IntegrationScope"];
                /** @description Only the integrations that can be installed on this target (integrations of target `all` match every target). */
                target?: components["schemas"]["IntegrationTarget"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of integrations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getIntegrationByName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Unique name of the integration. */
                integrationName: components["parameters"]["integrationName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    publishIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Unique name of the integration. */
                integrationName: components["parameters"]["integrationName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PublishIntegrationBody"];
            };
        };
        responses: {
            /** @description The published integration. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    unpublishIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Unique name of the integration. */
                integrationName: components["parameters"]["integrationName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration is gone (or never existed). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listOrganizationsForAuthenticatedUser: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the caller's organizations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New name of the organization. */
                    title?: string;
                    /** @description New merge rules of the organization (`rules` or `none`). */
                    mergeRules?: {
                        /**
                         * @description Use the rules listed in `rules`.
                         * @constant
                         */
                        type: "rules";
                        /** @description Rules that must all pass. */
                        rules: components["schemas"]["MergeRule"][];
                    } | {
                        /**
                         * @description No rule; change requests can be merged without review.
                         * @constant
                         */
                        type: "none";
                    };
                };
            };
        };
        responses: {
            /** @description The organization after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listChangeRequestsForOrganization: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only change requests with this status. */
                status?: components["schemas"]["ChangeRequestStatus"];
                /** @description Only change requests created by this user (a user id). */
                creator?: string;
                /** @description Only change requests this user created or edited (a user id). */
                contributor?: string;
                /** @description Only change requests whose review was requested from this user (a user id). */
                requestedReviewer?: string;
                /** @description Only change requests linked to this conversation issues cluster (a cluster id). */
                conversationsIssuesCluster?: string;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the change requests of the organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listCollectionsInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Whether to list collections inside other collections as well as those at the top level. */
                nested?: boolean;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the collections of the organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CollectionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Title of the collection. */
                    title?: string;
                    /** @description Id of the collection to create this one in. */
                    parent?: string;
                };
            };
        };
        responses: {
            /** @description The collection was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Collection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listConversations: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only the conversations of this source. */
                source?: components["schemas"]["ConversationSource"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of conversations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    ingestConversation: {
        parameters: {
            query?: {
                /**
                 * @description The system the conversations come from (a Quire addition: the public API takes it from the
                 *     integration installation's token). Ids are unique within a source, so two systems never overwrite
                 *     each other's conversations. Default `integration:api:default`.
                 */
                source?: components["schemas"]["ConversationSource"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationInput"] | components["schemas"]["ConversationInput"][];
            };
        };
        responses: {
            /** @description The conversations are ingested and waiting to be analysed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listConversationsIssuesClusters: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Direction of the sort. */
                order?: "asc" | "desc";
                /** @description What the clusters are sorted by - the time of their last update, or one of their counters (`stats`). */
                orderBy?: "updatedAt" | "issues" | "conversations" | "tasksTotal" | "tasksBacklog" | "tasksStarted";
                /**
                 * @description Only the clusters in this analysis state: `pending` (issues joined it since its label, summary and
                 *     icon were last drawn from its issues) or `analysing` (they are being drawn again now). Without it,
                 *     clusters in every state are answered.
                 */
                status?: "pending" | "analysing";
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of clusters. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationsIssuesClusterList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getConversationsIssuesCluster: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the conversation issues cluster. */
                clusterId: components["parameters"]["clusterId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cluster. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationsIssuesCluster"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listConversationsIssues: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only the issues grouped into the cluster with this id. */
                cluster?: string;
                /** @description Only the issues found in the conversation with this id. */
                conversation?: string;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of issues with their conversations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationIssueWithConversationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getConversationIssueById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the conversation issue. */
                issueId: components["parameters"]["issueId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issue and its conversation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationIssueWithConversation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getConversationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the conversation. */
                conversationId: components["parameters"]["conversationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conversation, its parts and its metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationDetails"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listMembersInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Direction of the sort, `desc` (most recent first) or `asc`. */
                order?: "asc" | "desc";
                /** @description Only members with this organization role; `guest` selects members whose role is `null`. */
                role?: "admin" | "create" | "review" | "edit" | "comment" | "read" | "guest";
                /** @description Only members whose display name or e-mail address contains this text, ignoring case. */
                search?: string;
                /**
                 * @description Field to sort by: `joinedAt` (when the member joined) or `lastSeenAt` (when the member was last
                 *     active; only members who have been seen are listed).
                 */
                sort?: "joinedAt" | "lastSeenAt";
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of members. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getMemberInOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeMemberFromOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is not, or no longer, a member of the organization. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateMemberInOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    role: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The member with the new role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpacesForOrganizationMember: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Direction of the sort, `desc` (most recently created spaces first) or `asc`. */
                order?: "asc" | "desc";
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the member's spaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberSpaceList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    setUserAsSSOMemberForOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member, now an SSO member. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listTeamsForOrganizationMember: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only teams whose title contains this text, ignoring case. */
                title?: string;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the member's teams. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberTeamList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listOpenAPISpecs: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of specifications. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createOpenAPISpec: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Slug of the new specification, unique within the organization. */
                    slug: string;
                    source: components["schemas"]["OpenAPISpecSource"];
                };
            };
        };
        responses: {
            /** @description The specification, waiting to be processed. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpec"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getOpenAPISpecBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The specification. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpec"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createOrUpdateOpenAPISpecBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    source: components["schemas"]["OpenAPISpecSource"];
                };
            };
        };
        responses: {
            /** @description The existing specification, with its new source waiting to be processed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpec"];
                };
            };
            /** @description The new specification, waiting to be processed. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpec"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteOpenAPISpecBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The specification is deleted, or did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateOpenAPISpecBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The new visibility.
                     * @enum {string}
                     */
                    visibility: "private" | "public";
                };
            };
        };
        responses: {
            /** @description The specification, with its new visibility. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpec"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listOpenAPISpecVersions: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of versions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecVersionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getLatestOpenAPISpecVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The latest version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecVersion"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getLatestOpenAPISpecVersionContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The content of the latest version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecContent"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getOpenAPISpecVersionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
                /** @description Id of the OpenAPI specification version. */
                versionId: components["parameters"]["versionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecVersion"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getOpenAPISpecVersionContentById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Slug of the OpenAPI specification, unique within the organization. */
                specSlug: components["parameters"]["specSlug"];
                /** @description Id of the OpenAPI specification version. */
                versionId: components["parameters"]["versionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The content of the version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAPISpecContent"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateOrganizationMemberLastSeenAt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The last seen time was recorded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A signed JWT of the claims to attach to the caller as a visitor. Absent when there are none. */
                        serviceVisitorClaims?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSAMLProvidersInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of SAML providers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SAMLProviderList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createOrganizationSAMLProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name of the provider shown on the login page. */
                    label: string;
                    /** @description Entity id of the identity provider. */
                    entityID?: string;
                    /** @description X.509 signing certificate of the identity provider. */
                    certificate?: string;
                    /**
                     * Format: uri
                     * @description URL of the identity provider's single sign-on endpoint.
                     */
                    ssoURL?: string;
                    /** @description Id of the team that members joining through this provider are put in. */
                    defaultTeam?: string;
                    /** @description Role of members joining through this provider; `null` makes them guests. */
                    defaultRole?: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The SAML provider was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SAMLProvider"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getOrganizationSAMLProviderById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the SAML provider. */
                samlProviderId: components["parameters"]["samlProviderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SAML provider. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SAMLProvider"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteOrganizationSAMLProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the SAML provider. */
                samlProviderId: components["parameters"]["samlProviderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SAML provider does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateOrganizationSAMLProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the SAML provider. */
                samlProviderId: components["parameters"]["samlProviderId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name of the provider shown on the login page. */
                    label?: string;
                    /** @description Entity id of the identity provider. */
                    entityID?: string;
                    /** @description X.509 signing certificate of the identity provider. */
                    certificate?: string;
                    /**
                     * Format: uri
                     * @description URL of the identity provider's single sign-on endpoint.
                     */
                    ssoURL?: string;
                    /** @description Id of the team that members joining through this provider are put in. */
                    defaultTeam?: string;
                    /** @description Role of members joining through this provider; `null` makes them guests. */
                    defaultRole?: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The updated SAML provider. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SAMLProvider"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSites: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Id of a space; only the sites that publish it. */
                space?: string;
                /** @description Only the sites whose title contains this text, ignoring case. */
                title?: string;
                /** @description When true only published sites, when false only unpublished ones; omitted, both. */
                published?: boolean;
                /** @description Only the sites of one of these types; repeat the key to give several. */
                type?: components["schemas"]["SiteType"][];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of sites. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @default basic */
                    type?: components["schemas"]["SiteType"];
                    /** @description Name of the site. */
                    title?: string;
                    /** @default public */
                    visibility?: components["schemas"]["SiteVisibility"];
                    /** @description Ids of the spaces to publish on the site, in order. */
                    spaces?: string[];
                };
            };
        };
        responses: {
            /** @description The site was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSiteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New name of the site. */
                    title?: string;
                    visibility?: components["schemas"]["SiteVisibility"];
                    /** @description Path segment to serve the site under on the organization's hostname. */
                    basename?: string;
                    /** @description Turns adaptive content on or off. */
                    adaptiveContent?: {
                        /** @description Whether adaptive content is on. */
                        enabled: boolean;
                    };
                    /**
                     * @description Whether the AI agent may read the site's content.
                     * @enum {string}
                     */
                    agentsContext?: "excluded" | "included";
                    /** @description Id of the site space to make the default one. */
                    defaultSiteSpace?: string;
                    /** @description Id of the site section to make the default one. */
                    defaultSiteSection?: string;
                    /** @description Domain and path to serve the site under through a reverse proxy, or null to stop. */
                    proxy?: string | null;
                    /** @description Hostname to serve the site on, unique across the installation, or null to stop. */
                    hostname?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSiteAdaptiveSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The adaptive schema of the site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteAdaptiveSchema"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteAdaptiveSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    jsonSchema: components["schemas"]["SiteAdaptiveJSONSchema"];
                };
            };
        };
        responses: {
            /** @description The stored adaptive schema. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteAdaptiveSchema"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSiteAdaptiveTemplateConditions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The condition templates. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description What the condition selects, in words. */
                            description: string;
                            /** @description The condition expression over the visitor's claims. */
                            condition: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSiteCustomizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site's customization, defaults filled in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteCustomizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SiteCustomization"];
            };
        };
        responses: {
            /** @description The site's customization as stored, defaults filled in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    publishSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The published site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getPublishedContentSite: {
        parameters: {
            query?: {
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The published content of the site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishedContentSite"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSiteSectionGroups: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of section groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSectionGroupList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    addSectionGroupToSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name of the group. */
                    title: string;
                    /** @description Name of the icon shown next to the title, or null for none. */
                    icon?: string | null;
                    /** @description Ids of the sections to put in the group, in order. */
                    sections?: string[];
                    /** @description Id of the section group to nest the new group in. */
                    parent?: string;
                };
            };
        };
        responses: {
            /** @description The section group was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSectionGroup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteSectionGroupById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section group. */
                siteSectionGroupId: components["parameters"]["siteSectionGroupId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The section group does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteSectionGroupById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section group. */
                siteSectionGroupId: components["parameters"]["siteSectionGroupId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New name of the group. */
                    title?: string;
                    /** @description Name of the icon shown next to the title, or null to remove it. */
                    icon?: string | null;
                    /** @description Id of the section group to move this group into, or null for the root of the site. */
                    parentSectionGroupId?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated section group. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSectionGroup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    addSectionToGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section group. */
                siteSectionGroupId: components["parameters"]["siteSectionGroupId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the section to put in the group. */
                    sectionId: string;
                };
            };
        };
        responses: {
            /** @description The section group, now holding the section. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSectionGroup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeSectionFromGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section group. */
                siteSectionGroupId: components["parameters"]["siteSectionGroupId"];
                /** @description Id of the site section. */
                siteSectionId: components["parameters"]["siteSectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The section is not, or no longer, part of the group. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSiteSections: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of sections. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSectionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    addSectionToSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the space to publish as the first site space of the section. */
                    spaceId: string;
                    /** @description Name of the section. */
                    title?: string;
                    /** @description Name of the icon shown next to the title, or null for none. */
                    icon?: string | null;
                    /** @description Id of the section group to put the section in. */
                    siteSectionGroupId?: string;
                };
            };
        };
        responses: {
            /** @description The section was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteSectionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section. */
                siteSectionId: components["parameters"]["siteSectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The section does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteSectionById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site section. */
                siteSectionId: components["parameters"]["siteSectionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New name of the section. */
                    title?: string;
                    /** @description Name of the icon shown next to the title, or null to remove it. */
                    icon?: string | null;
                    /** @description New path of the section on the site. */
                    path?: string;
                    /** @description Adaptive-content expression deciding who sees the section, or null to remove it. */
                    condition?: string | null;
                    /** @description Id of the section group to move the section into, or null for the root of the site. */
                    siteSectionGroupId?: string | null;
                    /** @description True to make the section the default section of the site. */
                    default?: boolean;
                };
            };
        };
        responses: {
            /** @description The updated section. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSiteShareLinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of share links. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShareLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createSiteShareLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Label that says who the link is for. */
                    name: string;
                };
            };
        };
        responses: {
            /** @description The share link was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShareLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteShareLinkById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the share link. */
                shareLinkId: components["parameters"]["shareLinkId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The share link does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteShareLinkById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the share link. */
                shareLinkId: components["parameters"]["shareLinkId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Whether the link opens the site. */
                    active?: boolean;
                    /** @description New label of the link. */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description The updated share link. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShareLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSiteSpaces: {
        parameters: {
            query?: {
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description True for only the default site space, false for only the others; omitted, all of them. */
                default?: boolean;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of site spaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSpaceList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    addSpaceToSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the space to publish on the site. */
                    spaceId: string;
                    /** @description Id of the site section to put the space in. */
                    sectionId?: string;
                };
            };
        };
        responses: {
            /** @description The space was linked to the site. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSpace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteSpaceById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site space does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteSpaceById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New path of the space on the site. */
                    path?: string;
                    /** @description Adaptive-content expression deciding who sees the space, or null to remove it. */
                    condition?: string | null;
                    /** @description Id of the space to publish at this place instead. */
                    spaceId?: string;
                };
            };
        };
        responses: {
            /** @description The updated site space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSpace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSiteSpaceCustomizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site space's complete customization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteSpaceCustomizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site space follows the site's customization again. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    overrideSiteSpaceCustomizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SiteSpaceCustomizationOverride"];
            };
        };
        responses: {
            /** @description The site space's complete customization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    moveSiteSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site space (the link between a site and a space). */
                siteSpaceId: components["parameters"]["siteSpaceId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Where to put the site space; give `before` or `after`. */
                    position?: {
                        /** @description The sibling site space to put it before. */
                        before?: {
                            /** @constant */
                            type: "site-space";
                            /** @description Id of a site space of the same level. */
                            siteSpace: string;
                        };
                        /** @description The sibling site space to put it after. */
                        after?: {
                            /** @constant */
                            type: "site-space";
                            /** @description Id of a site space of the same level. */
                            siteSpace: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description The moved site space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSpace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    unpublishSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The unpublished site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSiteVisitorAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The visitor authentication of the site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteVisitorAuth"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSiteVisitorAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) address.
                     */
                    backendUrl: string;
                    /**
                     * @description Make a new signing key.
                     * @default false
                     */
                    rotateKey?: boolean;
                };
            };
        };
        responses: {
            /** @description The stored visitor authentication. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteVisitorAuth"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSiteVisitorAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpacesInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the spaces of the organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SpaceList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Title of the space. */
                    title?: string;
                    /** @description Emoji shown with the space. */
                    emoji?: string;
                    /** @description Id of the collection to create the space in. */
                    parent?: string;
                    language?: components["schemas"]["SpaceLanguage"];
                    editMode?: components["schemas"]["SpaceEditMode"];
                };
            };
        };
        responses: {
            /** @description The space was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSSOProviderLoginsInOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SSO entry points. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SSOProviderLogin"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listTeamsInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Id of a member; only the teams this member can manage. */
                owner?: string;
                /** @description Only teams whose title contains this text, ignoring case. */
                title?: string;
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of teams. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createOrganizationTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name of the team. */
                    title: string;
                    /** @description Ids of the members to add to the team. */
                    members?: string[];
                };
            };
        };
        responses: {
            /** @description The team was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getTeamInOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeTeamFromOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team does not, or no longer, exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateTeamInOrganizationById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New name of the team. */
                    title: string;
                };
            };
        };
        responses: {
            /** @description The renamed team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listTeamMembersInOrganizationById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the team's members. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMembershipList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateMembersInOrganizationTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Users to put in the team, each a user id or an e-mail address. */
                    add?: string[];
                    /** @description Users to take out of the team, each a user id or an e-mail address. Wins over `add`. */
                    remove?: string[];
                    /** @description Team role to set, by user id. */
                    memberships?: {
                        [key: string]: {
                            role: components["schemas"]["TeamMemberRole"];
                        };
                    };
                };
            };
        };
        responses: {
            /** @description The members of the team were updated. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    addMemberToOrganizationTeamById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    role?: components["schemas"]["TeamMemberRole"];
                };
            };
        };
        responses: {
            /** @description The user is in the team with the requested role. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteMemberFromOrganizationTeamById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is not, or no longer, in the team. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listGlossaryEntries: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of glossary entries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GlossaryEntryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateGlossaryEntries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The operations to apply, in order. */
                    operations: components["schemas"]["GlossaryOperation"][];
                };
            };
        };
        responses: {
            /** @description Every operation is applied. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getGlossaryEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the glossary entry. */
                glossaryEntryId: components["parameters"]["glossaryEntryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The glossary entry. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GlossaryEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSpaceById: {
        parameters: {
            query?: {
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteSpaceById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The space is deleted, or did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateSpaceById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    editMode?: components["schemas"]["SpaceEditMode"];
                    /** @description New title of the space. */
                    title?: string;
                    defaultLevel?: components["schemas"]["DefaultLevel"];
                    language?: components["schemas"]["SpaceLanguage"];
                    mergeRules?: components["schemas"]["MergeRules"];
                    /** @description New emoji of the space; `null` or an empty string removes it. */
                    emoji?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listChangeRequestsForSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only change requests with this status. */
                status?: components["schemas"]["ChangeRequestStatus"];
                /** @description Only change requests created by this user (a user id). */
                creator?: string;
                /** @description Only change requests this user created or edited (a user id). */
                contributor?: string;
                /** @description Only change requests whose review was requested from this user (a user id). */
                requestedReviewer?: string;
                /** @description Only change requests linked to this conversation issues cluster (a cluster id). */
                conversationsIssuesCluster?: string;
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the change requests of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    createChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Short title of the change request; empty when omitted. */
                    subject?: string;
                    /** @description Longer explanation of the change request, as a rich document. */
                    description?: components["schemas"]["JSONDocument"];
                    /** @description Id of the conversation issues cluster of the organization that the change request addresses (400 when the organization has no such cluster); the change request then counts among the cluster's tasks. */
                    conversationsIssuesCluster?: string;
                };
            };
        };
        responses: {
            /** @description The new change request. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getChangeRequestById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateChangeRequestById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New short title; an empty string clears it. */
                    subject?: string;
                    /** @description New explanation, as a rich document, replacing the previous one. */
                    description?: components["schemas"]["JSONDocument"];
                    /**
                     * @description New status.
                     * @enum {string}
                     */
                    status?: "draft" | "open" | "archived";
                    /** @description Id of the conversation issues cluster of the organization that the change request addresses (400 when the organization has no such cluster), or null to unlink it. */
                    conversationsIssuesCluster?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged and can no longer be changed. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getRevisionOfChangeRequestById: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current revision of the change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateChangeRequestContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The changes, applied in order as one batch. */
                    changes: components["schemas"]["ChangeRequestContentChange"][];
                };
            };
        };
        responses: {
            /** @description The changes were applied; the change request, what happened to each page, and the files added. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestContentUpdate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The caller may not edit this space, or the space is locked. */
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged or archived and can no longer be edited. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listFilesInChangeRequestById: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the files of the change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionFileList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getFileInChangeRequestById: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the file. */
                fileId: components["parameters"]["fileId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionFile"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listChangeRequestFileBacklinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the file. */
                fileId: components["parameters"]["fileId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the locations linking to the file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BacklinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getPageInChangeRequestById: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
                /**
                 * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
                 *     only expressions whose inputs are deterministic, `false` none.
                 */
                evaluated?: components["parameters"]["documentEvaluated"];
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listChangeRequestPageBacklinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the locations linking to the page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BacklinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPageLinksInChangeRequest: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the links of the page, with counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPagesInChangeRequest: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page tree of the change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionPageList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listChangeRequestLinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only links with this status (`ok`, `broken` or `in-app`); all links when omitted. `stats` counts them all. */
                status?: "ok" | "broken" | "in-app";
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the links of the change request, with counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    mergeChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change request was merged, or could not be because of conflicts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestMergeResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The caller may not merge in this space, the space is locked, or a merge rule is unmet. */
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is already merged. */
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getChangeRequestPDF: {
        parameters: {
            query?: {
                /** @description When true, the PDF holds only the page given by `page`, without its descendants. */
                only?: boolean;
                /** @description Id of the page of the change request the PDF starts from (a page id, not a list cursor). */
                page?: string;
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where to download the PDF. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description URL the PDF can be downloaded from.
                         */
                        readonly url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change request was updated, or could not be because of conflicts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestUpdateResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The caller may not edit this space, or the space is locked. */
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged. */
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getRequestedReviewersByChangeRequestId: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the requested reviewers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestRequestedReviewerList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    requestReviewersForChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Ids of the users to ask for a review. */
                    users: string[];
                };
            };
        };
        responses: {
            /** @description The requested reviewers of the change request after the call. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Ids of every requested reviewer of the change request, in the order they were asked. */
                        users: string[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged or archived. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeRequestedReviewerFromChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is no longer a requested reviewer. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged. */
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getReviewsByChangeRequestId: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the reviews. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestReviewList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    submitChangeRequestReview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    status: components["schemas"]["ChangeRequestReviewStatus"];
                    /**
                     * @description What the reviewer has to say with the review, posted as a discussion comment of the change request
                     *     (answered as the review's `comment`); the content limits of comments apply (400 past them). A body
                     *     with no content posts no comment.
                     */
                    comment?: components["schemas"]["CommentBody"];
                };
            };
        };
        responses: {
            /** @description The new review. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestReview"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The change request is merged or archived. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getChangeRequestReviewById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the review. */
                reviewId: components["parameters"]["reviewId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The review. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestReview"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listCommentersInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the people who commented in the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listCommentsInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Order of the comments by posting date, `desc` (newest first) or `asc` (oldest first). */
                order?: "asc" | "desc";
                /** @description Keep only `open` or only `resolved` comments; `all` keeps both. */
                status?: "all" | "open" | "resolved";
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
                /** @description Keep only the comments attached to this page (id of a page of the space). */
                targetPage?: string;
                /** @description Keep only the comments posted by one of these users. Repeat the key for each user id (`authors=a&authors=b`). */
                authors?: string[];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the comments of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    postCommentInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id (key) of the block of `page` to attach the comment to. */
                    node?: string;
                    /** @description Id of the page to attach the comment to. */
                    page?: string;
                    /** @description Id of a change request of the space, or its number, to post the comment on. */
                    changeRequest?: string;
                    body: components["schemas"]["CommentBody"];
                    /** @description The cell of the table block `node` to attach the comment to. */
                    tableCell?: {
                        /** @description Id of the table row (record), a key of the table block's `data.records`. */
                        record: string;
                        /** @description Id of the table column (definition), a key of the table block's `data.definition`. */
                        definition: string;
                    };
                };
            };
        };
        responses: {
            /** @description The comment was posted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getCommentInSpace: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The comment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateCommentInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `true` resolves the comment, `false` opens it again. */
                    resolved?: boolean;
                    body?: components["schemas"]["CommentBody"];
                    /** @description Emojis to react with, as the caller. */
                    addedReactions?: string[];
                    /** @description Emojis whose reaction by the caller is removed. */
                    removedReactions?: string[];
                };
            };
        };
        responses: {
            /** @description The comment, as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteCommentInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The comment is deleted, or did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listCommentRepliesInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the replies to the comment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentReplyList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    postCommentReplyInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    body: components["schemas"]["CommentBody"];
                };
            };
        };
        responses: {
            /** @description The reply was posted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentReply"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getCommentReplyInSpace: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reply. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentReply"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateCommentReplyInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    body?: components["schemas"]["CommentBody"];
                    /** @description Emojis to react with, as the caller. */
                    addedReactions?: string[];
                    /** @description Emojis whose reaction by the caller is removed. */
                    removedReactions?: string[];
                };
            };
        };
        responses: {
            /** @description The reply, as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentReply"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteCommentReplyInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reply is deleted, or did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getCurrentRevision: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current revision of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the files of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionFileList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getFileById: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the file. */
                fileId: components["parameters"]["fileId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionFile"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpaceFileBacklinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the file. */
                fileId: components["parameters"]["fileId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the locations linking to the file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BacklinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getPageById: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
                /**
                 * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
                 *     only expressions whose inputs are deterministic, `false` none.
                 */
                evaluated?: components["parameters"]["documentEvaluated"];
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpacePageBacklinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the locations linking to the page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BacklinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPageLinksInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only links with this status (`ok`, `broken` or `in-app`); all links when omitted. */
                status?: "ok" | "broken" | "in-app";
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the links of the page, with counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPages: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page tree of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionPageList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    applyTemplateToSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The template to apply (see above).
                     * @enum {string}
                     */
                    id: "blank" | "openapi-reference" | "getting-started";
                    /** @description Inputs of the template. */
                    params?: {
                        /** @description Content the template builds on, by name; `openapi-reference` needs `spec`. */
                        contentRefs?: {
                            [key: string]: components["schemas"]["ContentRef"];
                        };
                    };
                    /** @description Id (or number) of a change request of the space to apply the template to, instead of the main content. */
                    changeRequestId?: string;
                };
            };
        };
        responses: {
            /** @description The template was applied; no body. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The caller may not edit this space, or the space is locked. */
            403: components["responses"]["Forbidden"];
            /** @description No space matches, or no change request of the space matches `changeRequestId`. */
            404: components["responses"]["NotFound"];
            /** @description The change request is merged or archived. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    duplicateSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new copy of the space. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    exportToGitRepository: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportGitRepositoryBody"];
            };
        };
        responses: {
            /** @description The export is queued. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description A sync operation with a later `timestamp` already ran on the space; this one is not queued. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": 409,
                     *         "message": "A newer Git sync operation already ran on this space"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    importGitRepository: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImportGitRepositoryBody"];
            };
        };
        responses: {
            /** @description The import is queued. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description A sync operation with a later `timestamp` already ran on the space; this one is not queued. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": 409,
                     *         "message": "A newer Git sync operation already ran on this space"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getSpaceGitInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Git sync state of the space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GitSyncState"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description No space matches the id, the caller cannot see it, or the space has never been synchronized with a Git repository. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": 404,
                     *         "message": "This space has never been synchronized with a Git repository"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteLegacyGitInstallation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The legacy installation is removed, or there was none. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSpaceLinks: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only links with this status (`ok`, `broken` or `in-app`); all links when omitted. */
                status?: "ok" | "broken" | "in-app";
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the links of the space, with counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentLinkList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    moveSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the collection to move into, or `null` for the top level of the organization. */
                    parent?: string | null;
                    position?: components["schemas"]["ContentPosition"];
                };
            };
        };
        responses: {
            /** @description The moved space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    restoreSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The restored space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    searchSpaceContent: {
        parameters: {
            query: {
                /** @description The words to search for. */
                query: string;
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the matching pages. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResultList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    transferSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Id of the organization to transfer the space to; may be its current organization. */
                    organization: string;
                    /**
                     * @description Id of a collection of the target organization to put the space in; when left out, the space goes
                     *     to the top level of the target organization. An addition to the public API, whose body holds
                     *     only `organization`.
                     */
                    collection?: string;
                };
            };
        };
        responses: {
            /** @description The transferred space. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getPublishedContentByUrl: {
        parameters: {
            query: {
                /** @description The absolute http(s) address the reader opened, with its query string. */
                url: string;
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
                /** @description The JWT the site's visitor-authentication backend signed for this visitor (HS256, with `exp`). */
                visitorAuthToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The content at that address, or where to send the visitor first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishedContentLookup"] | components["schemas"]["PublishedContentRedirect"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getAuthenticatedUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPermissionsInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the grants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentPermissionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    inviteToSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    role: components["schemas"]["MemberRole"];
                    /** @description Ids of the users to grant the role to. */
                    users?: string[];
                    /** @description Ids of the teams to grant the role to. */
                    teams?: string[];
                };
            };
        };
        responses: {
            /** @description The roles are granted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeUserPermissionInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The grant is removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateUserPermissionInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new role, or null to remove the grant. */
                    role: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The grant is changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeTeamPermissionInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The grant is removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateTeamPermissionInSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new role, or null to remove the grant. */
                    role: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The grant is changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPermissionsInCollection: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the grants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentPermissionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    inviteToCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    role: components["schemas"]["MemberRole"];
                    /** @description Ids of the users to grant the role to. */
                    users?: string[];
                    /** @description Ids of the teams to grant the role to. */
                    teams?: string[];
                };
            };
        };
        responses: {
            /** @description The roles are granted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeUserPermissionInCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The grant is removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateUserPermissionInCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new role, or null to remove the grant. */
                    role: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The grant is changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    removeTeamPermissionInCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The grant is removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateTeamPermissionInCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the collection. */
                collectionId: components["parameters"]["collectionId"];
                /** @description Id of the team. */
                teamId: components["parameters"]["teamId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new role, or null to remove the grant. */
                    role: components["schemas"]["MemberRoleOrGuest"];
                };
            };
        };
        responses: {
            /** @description The grant is changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
}
