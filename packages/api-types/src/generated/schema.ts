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
    "/auth/invites/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation as a new person
         * @description Makes the account of the address an invitation by e-mail was sent to, with the name and password given
         *     (at least 12 characters, at most 256, not a common password: the error names the rule), and makes it a
         *     member with the invitation's role, in one step; the person then signs in. The invitation works once: a
         *     second acceptance answers 404 like a revoked or expired one. When the address has an account already, 409:
         *     sign in and use `joinOrganizationWithInvite`. An invite link carries no address, so it is accepted by people
         *     with an account only (409).
         *
         *     Needs no token: the secret is the credential.
         */
        post: operations["acceptOrganizationInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/invites/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read what an invitation offers
         * @description For the page of a join address: the organization, the role and, for an invitation by e-mail, the address
         *     it is for. Needs no token: the secret is the credential (sent in the body, not the address, so that it
         *     stays out of access logs). An unknown secret, and an invitation revoked, expired or used up, answer 404.
         */
        post: operations["previewOrganizationInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the ways to sign in
         * @description What a sign-in page offers: the password form, the installation's OpenID Connect provider (configured by
         *     the operator with `QUIRE_OIDC_*`), and, for the `email` given, the SAML providers of the organizations
         *     that declare its domain. Needs no bearer token: it is read before anyone is signed in, and tells nothing
         *     about whether an address has an account.
         */
        get: operations["listSignInProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with an email and a password
         * @description Opens a browser session: answers the session with its CSRF token and sets the `quire_session` cookie
         *     (HttpOnly, SameSite=Lax, Secure when Quire is served over HTTPS), which the rest of the API then accepts
         *     as the caller. When the account has a second factor and `code` is absent, answers a
         *     `sign-in-challenge` and sets no cookie: send the same request again with `code`, a code of the
         *     authenticator app or one of the recovery codes.
         *
         *     A wrong email, password or code answers 401 with the same message, and takes the same time, whether or
         *     not the email has an account. Failed attempts are limited per account and per client address: past the
         *     limit, 429 with `Retry-After`. Needs no bearer token.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Ends the session of the request's cookie and clears the cookie. A request made with a bearer token has
         *     no session to end and changes nothing.
         */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the session of the request
         * @description Answers the browser session of the request's `quire_session` cookie, its user and its CSRF token: a page
         *     loaded afresh reads its CSRF token here. A request without a valid session (a bearer token included)
         *     answers 401.
         */
        get: operations["getCurrentSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's sessions
         * @description The caller's browser sessions that have not expired or ended, newest first; `current` marks the request's own.
         */
        get: operations["listUserSessions"];
        put?: never;
        post?: never;
        /**
         * End the caller's other sessions
         * @description Ends every browser session of the caller but the request's own (all of them for a request made with a bearer token).
         */
        delete: operations["deleteUserSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/sessions/{sessionId}": {
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
         * End one of the caller's sessions
         * @description Ends the caller's session with this id at once; ending the request's own session signs it out. A session
         *     that is already ended, or is not the caller's, answers 204 and changes nothing.
         */
        delete: operations["deleteUserSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change the caller's password
         * @description Sets a new password after checking the current one. The new password follows the password rules (12 to
         *     256 characters, not a common password); the error names the rule it breaks. Every other session of the
         *     caller ends at once; the request's own stays open. A wrong current password answers 403.
         */
        put: operations["updateUserPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/totp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start setting up a second factor
         * @description Makes a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) for the caller and answers it, this once.
         *     It takes effect when `confirmTotpEnrollment` receives a first code. Starting again before confirming
         *     replaces the secret; a caller whose second factor is on answers 409 (turn it off first).
         */
        post: operations["startTotpEnrollment"];
        /**
         * Turn the second factor off
         * @description Turns the caller's second factor off, given a current code or a recovery code; its recovery codes go with it. A wrong code answers 403.
         */
        delete: operations["disableTotp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/totp/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm the second factor with a first code
         * @description Turns the second factor on once the authenticator app's first code matches, and answers its recovery
         *     codes, shown this once (stored only hashed). A wrong code answers 403; no enrolment started, 404.
         */
        post: operations["confirmTotpEnrollment"];
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
    "/email-domains/{emailDomain}/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's organizations that declare an e-mail domain
         * @description Answers the organizations that declare this e-mail domain in their `emailDomains` (set by their admins
         *     with `updateOrganizationById`), among the organizations the caller belongs to, each with the caller's
         *     `permissions` in it. The public API uses this operation to suggest organizations to people of a domain; a
         *     self-hosted Quire answers only what the caller may already see, so that the operation never tells whether
         *     an organization the caller does not belong to exists or which domains it declares: such organizations are
         *     never named, and a domain no organization of the caller's declares answers an empty list, not 404.
         *     Domains are compared without regard to case. A session started through an organization's SSO sees that
         *     organization only.
         */
        get: operations["getOrganizationsForEmailDomain"];
        put?: never;
        post?: never;
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
         *     Publishes of the same name at the same time by its owner each get their own version number, in the order
         *     they commit (the server tries a publish again when another committed first); a 409 asking to publish
         *     again is answered only past 32 such tries. Two organizations publishing a new name at once: the first to
         *     commit owns it, and the other gets the 409 of a name that belongs to another organization.
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
         * @description Changes the title, the e-mail domains (`emailDomains`, which `getOrganizationsForEmailDomain` and
         *     `joinOrganization` read; stored in lower case, each once), whether invite links work (`inviteLinks`) or the
         *     merge rules of the organization. Merge rules take effect at once: every open
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
    "/orgs/{organizationId}/invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the e-mail invitations still waiting
         * @description Answers the organization's invitations by e-mail that nobody has accepted yet and no admin has revoked,
         *     oldest first, expired ones included (their `expiresAt` says so), without their join addresses: those went
         *     to the people invited, or were answered once to the admin who invited them. `deleteOrganizationInviteById`
         *     revokes one. Needs the `admin` permission of the organization.
         */
        get: operations["listPendingOrganizationInvites"];
        put?: never;
        /**
         * Invite people to an organization by e-mail
         * @description Makes one invitation per address, with the role given for that address, else `role`, else the
         *     organization's default role (`read` when it has none); `null` invites a guest. Each invitation works once
         *     and for 7 days, and replaces any invitation of the same address still waiting. Addresses of people already
         *     in the organization get none.
         *
         *     With a mail server (`QUIRE_SMTP_URL`), each person is sent their join address (`<public URL>/join/<secret>`)
         *     by mail, from a background job retried until the server takes the message; the answer does not wait for it.
         *     Without one, each invitation of the answer carries its join address (`url`) for the admin to pass on. Nobody
         *     joins before accepting: a new person with `acceptOrganizationInvite` (choosing a password), someone with an
         *     account with `joinOrganizationWithInvite`. With `sso: true` the people join as SSO members.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["inviteUsersToOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/invites/{inviteSecret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join an organization with an invitation
         * @description Makes the caller a member of the organization with the invitation's role: the invitation is named by its
         *     secret, the last segment of its join address. An invitation by e-mail is for the account of that address
         *     only (403 for another); an invite link for anyone, while the organization's `inviteLinks` is on and uses
         *     are left. Each person joins with an invitation once: a second time answers 409, as does joining an
         *     organization one belongs to already. An unknown secret, and an invitation revoked, expired or used up,
         *     answer 404, whatever the organization in the path (another organization's invitation included).
         */
        post: operations["joinOrganizationWithInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/join": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join an organization by e-mail domain
         * @description Makes the caller a member of the organization, with its default role (`read` when it has none), when the
         *     domain of the caller's e-mail address is one of the organization's `emailDomains`; 400 otherwise. Quire has
         *     no sign-up of its own: every account's address was given by the operator, proven by an invitation mailed
         *     to it, or asserted by the organization's identity provider, so it counts as verified. Answers 204 also when
         *     the caller is a member already; a suspended member gets 403. An unknown organization answers 404.
         */
        post: operations["joinOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/link-invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the invite links of an organization
         * @description Answers the invite links to the organization that have not been deleted (expired and used-up ones
         *     included), oldest first, without their secrets. Links to one space or collection are not listed (the
         *     public API lists only these); `getOrganizationInviteLink` reads one by its id. Needs the `admin`
         *     permission of the organization.
         */
        get: operations["listOrganizationInviteLinks"];
        put?: never;
        /**
         * Create an invite link
         * @description Makes an invite link: anyone with an account who opens its join address may join the organization
         *     (`joinOrganizationWithInvite`), until `expiresAt` (30 days by default, at most a year) and for at most
         *     `maxUses` people (no limit by default). The answer holds the join address (`url`), this once.
         *
         *     With `role`, the link is to the organization: the people joining get that role, and making it needs the
         *     `admin` permission of the organization. With `space` or `collection` and `level`, it is to that content:
         *     the people joining become guests of the organization (members keep their role) with `level` on it, and
         *     making it needs the `admin` permission of the space or collection (the permission `inviteToSpace` and
         *     `inviteToCollection` need); content that is not in the organization answers 404 as a missing one.
         *     Either way the organization's `inviteLinks` setting must be on (403 otherwise).
         */
        post: operations["createOrganizationInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/link-invites/{inviteId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an invite link
         * @description Answers the invite link, without its secret. Needs the `admin` permission of the organization or, for a
         *     link to one space or collection, that of the space or collection.
         */
        get: operations["getOrganizationInviteLink"];
        put?: never;
        post?: never;
        /**
         * Revoke an invite
         * @description Revokes the invite, a link or an invitation by e-mail (its id is in `inviteUsersToOrganization`'s answer):
         *     its join address lets nobody join from now on. Answers 205 when an invite was revoked, 204 when there was
         *     none. Needs the `admin` permission of the organization or, for a link to one space or collection, that of
         *     the space or collection.
         */
        delete: operations["deleteOrganizationInviteById"];
        options?: never;
        head?: never;
        /**
         * Update an invite link
         * @description Changes the role a link to the organization gives (`role`) or the level a link to a space or collection
         *     gives (`level`; the other field for the link's kind answers 400), its expiry or its use limit (not below
         *     the uses already made) and answers it; omitted fields keep their value, and the body must hold at least
         *     one. People who joined keep what they got. Needs the `admin` permission of the organization or, for a link
         *     to one space or collection, that of the space or collection.
         */
        patch: operations["updateOrganizationInviteById"];
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
         * @description Adds a SAML single sign-on provider to the organization. `label` and the identity provider's `ssoURL`
         *     are required (every provider answers its `ssoURL` as a URI, as the public API's shape has it, so one
         *     cannot be made without it); `entityID` and `certificate` can be given now or later with an update, and
         *     the provider stays `pending` until it is fully configured. `defaultTeam` must be a team of the organization
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
    "/orgs/{organizationId}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the content of an organization
         * @description Searches the titles and text of the pages of the main content of every space of the organization the
         *     caller can see (deleted spaces excepted) and answers the spaces with matching pages, best match first,
         *     each with its best matching pages (at most 10) and their matching sections, as `searchSpaceContent`
         *     answers them for one space. Spaces the caller cannot see are never searched, so their content never shows;
         *     a guest searches only what is shared with them. An organization the caller does not belong to answers 404.
         *
         *     As in `searchSpaceContent`, a search ranks at most 5,000 matching sections (of all the spaces together),
         *     and `count` counts the spaces among those. One answer holds at most 20 spaces whatever `limit` asks (each
         *     space's pages are searched on their own); `next` continues with the rest.
         */
        get: operations["searchOrganizationContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         *     `space` keeps the sites that publish this space (a space the caller cannot see matches no site, as an
         *     unknown id does), `title` the sites whose title contains the text (ignoring
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
    "/orgs/{organizationId}/sites/{siteId}/customization/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload an image for a docs site's logo or icon
         * @description Stores an image in Quire's file store for the site's customization and answers its `url`: the address,
         *     under the site's own address, at which the reader serves it to whoever may read the site (its visibility,
         *     share links and visitor authentication apply to it as to the site's pages). Put that address into
         *     `header.logo` or `favicon.icon` with `updateSiteCustomizationById`; uploading changes no customization.
         *
         *     Images only: PNG, JPEG, GIF or WebP, told by their bytes (the given `contentType` must agree), at most
         *     1 MiB and 4096 pixels on each side. SVG is refused: an SVG is a document that can hold scripts and load
         *     other addresses, and a logo needs none of that (export it as PNG or WebP).
         *
         *     Needs the `admin` permission of the organization, like changing the customization.
         */
        post: operations["uploadSiteCustomizationImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/customization/images/{siteImageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an image uploaded for a docs site's customization
         * @description Answers an image of the site's customization with a fresh `downloadURL` for its bytes. Members of the
         *     organization read it, and so does the visitor token of the published site (the reader serves the image's
         *     `url` by redirecting there); another site's image answers 404.
         */
        get: operations["getSiteCustomizationImageById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/customization/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Preview a customization of a docs site without saving it
         * @description Checks the body exactly as `updateSiteCustomizationById` would and answers the complete customization the
         *     site would then have (for `siteSpace`, that site space's, its own overrides applied over the body), but
         *     stores nothing: the site, its readers and its published pages are unchanged. The app's customization screen
         *     sends what is being typed here (through the reader, which renders the site's page with the answer), so that
         *     the preview is the reader's own rendering of the unsaved values.
         *
         *     Needs the `admin` permission of the organization, like saving the customization.
         */
        post: operations["previewSiteCustomizationById"];
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
    "/orgs/{organizationId}/sites/{siteId}/publishing/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the visitor authentication of a docs site
         * @description Answers the site's visitor authentication: its backend, the key visitors' JWTs are signed with, and the
         *     address visitors are sent to to sign in. Every site has a key: the first read (or change) makes it, 256
         *     random bits kept sealed.
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["getSitePublishingAuthById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the visitor authentication of a docs site
         * @description Sets the address visitors of a `visitor-auth` site are sent to to sign in (`fallbackURL`; null removes
         *     it, after which visitors without a valid JWT get 401 from the address lookup). The key stays as it is
         *     (`regenerateSitePublishingAuthById` makes a new one). `backend: integration` answers 400: no integration
         *     can be installed on a site of a self-hosted Quire.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["updateSitePublishingAuthById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a new visitor-authentication key for a docs site
         * @description Replaces the key visitors' JWTs are signed with by a new one and answers it. JWTs signed with the old key
         *     are refused from then on, and visitor tokens issued under it are closed at once.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["regenerateSitePublishingAuthById"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/publishing/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a preview address of a docs site
         * @description Answers the address at which the site's reader shows a site space (`siteSpace`, else the default one)
         *     as visitors see it. With `claims` (a Rison object, such as `(beta:!t,plan:pro)`), the address carries
         *     them as the visitor's unsigned claims (`visitor.<name>=<value>`), so that conditions are evaluated for
         *     them. The reader serves published sites only, so a site that is not published answers 400; members of
         *     the organization open any published site through the address whatever its visibility. The address does
         *     not expire: it is the site's own address (the public API's previews are valid for an hour).
         *
         *     Any member of the organization may ask for it, for the site spaces whose spaces they see.
         */
        get: operations["getSitePublishingPreviewById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search the content of a docs site
         * @description Searches the spaces the site publishes (with the search of `searchSpaceContent`) and answers, one item per
         *     space with matches, the space's best pages. Which site spaces are searched:
         *     - `scope: {mode: default}`: the default site space of each section (of the site, when it has no
         *       sections), and `currentSiteSpace` too when given;
         *     - `scope: {mode: specific, siteSpaceIds}`: those site spaces;
         *     - `scope: {mode: all}`: every site space.
         *     The public API's earlier forms are accepted too: `siteSpaceIds` (with `mode: specific` or no mode),
         *     `mode: current` with `siteSpaceId` (as `default` with that site space), and `mode: all`. Give one form;
         *     none, or a site space the site does not have or the caller cannot see, answers 400. Members see only
         *     the site spaces whose spaces they may see. `limit` is the number of spaces per page of results.
         *
         *     Any member of the organization may search.
         */
        post: operations["searchSiteContent"];
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
    "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a site section group
         * @deprecated
         * @description Deprecated: sortSiteStructure moves any item of the structure.
         *
         *     Moves the site section group among the sections and section groups of its level (which share one order) and answers
         *     it: just before `position.before`, or just after `position.after`, each pointing at a section or another section group of the
         *     same level. With no position (or no body), it goes last at its level. A pointer the site does not have at
         *     that level, or both `before` and `after`, answers 400. Concurrent moves are applied one after the other.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["moveSiteSectionGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         *     spaces. Sections that sit in a section group are listed too, with the group's id in `sectionGroup`. With
         *     `shareKey`, the published URLs in the answer carry that share link's key; a key the site does not have
         *     (or an inactive one) answers 404 like an unknown site.
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
         *     section. A space or group that the caller cannot find in the organization or site answers 400; a space
         *     the site publishes already answers 409, as adding it as a site space does.
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
    "/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a site section
         * @deprecated
         * @description Deprecated: sortSiteStructure moves any item of the structure.
         *
         *     Moves the site section among the sections and section groups of its level (which share one order) and answers
         *     it: just before `position.before`, or just after `position.after`, each pointing at another section of the
         *     same level. With no position (or no body), it goes last at its level. A pointer the site does not have at
         *     that level, or both `before` and `after`, answers 400. Concurrent moves are applied one after the other.
         *
         *     Needs the `admin` permission of the organization.
         */
        post: operations["moveSiteSection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/redirects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the redirects of a docs site
         * @description Answers the redirects of the site, one page at a time, ordered by source path. `search` keeps those whose
         *     source path contains the text (letters compared without case).
         *
         *     Needs the `admin` permission of the organization.
         */
        get: operations["listSiteRedirects"];
        put?: never;
        /**
         * Create a redirect in a docs site
         * @description Makes `source`, a path of the site, send its visitors to `destination` (a section, a site space or a page
         *     of the same site), and answers the redirect. The reader answers a request for the source with a permanent
         *     redirect (308) to the destination's address while the site is published.
         *
         *     400 when the destination names a section, site space or page that is not in the site; 409 when the site
         *     has a redirect from this source already. Needs the `admin` permission of the organization.
         */
        post: operations["createSiteRedirect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}": {
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
         * Delete a redirect of a docs site
         * @description Deletes the redirect; its source stops redirecting at once. As in the public API, 205 when the redirect
         *     was deleted and 204 when it did not exist. Needs the `admin` permission of the organization.
         */
        delete: operations["deleteSiteRedirectById"];
        options?: never;
        head?: never;
        /**
         * Update a redirect of a docs site
         * @description Changes the source or the destination of the redirect and answers it; omitted fields keep their value, so
         *     an empty body changes nothing. 400 for a destination outside the site, 409 when another redirect of the
         *     site has the new source. Needs the `admin` permission of the organization.
         */
        patch: operations["updateSiteRedirectById"];
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/redirect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find the redirect of a docs site by its source
         * @description Answers the redirect whose source is `source` and `target`, the address of its destination in the published
         *     site (with `?shareKey=` when `shareKey` is given, as share-link sites need). 404 when the site has no
         *     redirect from this source, or when the destination is no longer in the site (a page deleted since). Members
         *     of the organization read it.
         */
        get: operations["getSiteRedirectBySource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         * @description Deprecated: sortSiteStructure moves any item of the structure.
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
    "/orgs/{organizationId}/sites/{siteId}/structure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the structure of a docs site
         * @description Answers the whole structure of the site in its order: its sections and section groups (groups with their
         *     children, sections with their site spaces) when it has sections, else the site spaces of its root. Members
         *     see the site spaces whose spaces they see. With `shareKey`, the published URLs in the answer carry that
         *     share link's key.
         *
         *     Any member of the organization may read it.
         */
        get: operations["getSiteStructure"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/structure/sort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Move an item of a docs site's structure
         * @description Moves a site space, section or section group and answers it: just before `position.before`, or just after
         *     `position.after`; with neither, last at its level. Sections and section groups share one order per level
         *     and may point at each other: pointing at an item of another group moves the item into that group (a group
         *     never into itself or one of its own groups). A site space points only at a site space of its own level.
         *     An item the site does not have answers 404; a pointer the site does not have, of the wrong kind or level,
         *     or both `before` and `after`, answers 400. Concurrent moves are applied one after the other.
         *
         *     Needs the `admin` permission of the organization.
         */
        patch: operations["sortSiteStructure"];
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
    "/spaces/{spaceId}/change-requests/{changeRequestId}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List what a change request changes
         * @description Answers what the change request changes from the main content it was last brought up to date with
         *     (the revision it started from, or the one its last update pulled in): pages created, edited, moved and
         *     deleted, then files created, edited and deleted. Needs read access to the space.
         */
        get: operations["getChangeRequestChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/commenters": {
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
         * List the commenters of a change request
         * @description Answers the members of the organization who posted comments on the change request, or replies to them,
         *     each once. The caller needs to be able to view the space.
         */
        get: operations["listCommentersInChangeRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/comments": {
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
         * List the comments of a change request
         * @description Answers the comments posted on the change request (through this operation, through postCommentInSpace with
         *     `changeRequest`, or with a review), newest first unless `order` says otherwise. They are comments of the
         *     space too: listCommentsInSpace answers them among the others. Filters combine: `status` keeps open or
         *     resolved comments, `targetPage` keeps the comments attached to one page, and `authors` keeps the comments
         *     posted by any of the given users. The `format` parameter chooses the form of each comment's body. The
         *     caller needs to be able to view the space.
         */
        get: operations["listCommentsInChangeRequest"];
        put?: never;
        /**
         * Post a comment on a change request
         * @description Starts a discussion on the change request and answers the new comment, `open`, with `target.changeRequest`
         *     and `target.revision` set to the change request and its current revision. It is the comment that
         *     postCommentInSpace with `changeRequest` would post, and counts in the open comments of the change request
         *     and of the space. Without `page`, the comment is on the change request as a whole; with `page`, on that
         *     page of the change request's content; with `node` as well, on that block of the page; with `tableCell` as
         *     well, on that cell of the table block `node`. A page, block or cell that the change request's content
         *     lacks answers 400. The caller needs the `comment` role (or higher) on the space.
         */
        post: operations["postCommentInChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        /**
         * Get a comment of a change request
         * @description Answers one comment posted on the change request, with its reactions and a summary of its replies: the
         *     same comment getCommentInSpace answers. A comment of the space that is not on this change request answers
         *     404. The `format` parameter chooses the form of its body. The caller needs to be able to view the space.
         */
        get: operations["getCommentInChangeRequest"];
        /**
         * Update a comment of a change request
         * @description Changes a comment posted on the change request and answers it, as updateCommentInSpace does (a comment of
         *     the space that is not on this change request answers 404). `resolved: true` resolves it (`status` becomes
         *     `resolved`, with `resolvedAt` and `resolvedBy` set to now and the caller) and `resolved: false` opens it
         *     again; setting the status it already has changes nothing. The open comments of the change request and of
         *     the space are counted again. `body` replaces its content and sets `editedAt`; only the author may change
         *     it. `addedReactions` adds the caller's reaction with each emoji and `removedReactions` removes it; adding
         *     a reaction the caller already has, or removing one they do not have, changes nothing, and an emoji in both
         *     lists is removed. Resolving and reacting need the `comment` role (or higher) on the space. At least one
         *     field is required.
         */
        put: operations["updateCommentInChangeRequest"];
        post?: never;
        /**
         * Delete a comment of a change request
         * @description Deletes a comment posted on the change request and all its replies, and answers 205. Only the author of
         *     the comment or an admin of the space may delete it. A comment that is not on this change request (never
         *     was, was deleted, or is another discussion of the space) answers 204 and changes nothing; a space or
         *     change request the caller cannot see answers 404.
         */
        delete: operations["deleteCommentInChangeRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        /**
         * List the replies to a comment of a change request
         * @description Answers the replies to a comment posted on the change request, oldest first: the replies
         *     listCommentRepliesInSpace answers for the same comment. A comment that is not on this change request
         *     answers 404. The `format` parameter chooses the form of each reply's body. The caller needs to be able to
         *     view the space.
         */
        get: operations["listCommentRepliesInChangeRequest"];
        put?: never;
        /**
         * Reply to a comment of a change request
         * @description Adds a reply to the discussion of a comment posted on the change request and answers it; the comment's
         *     `replies` count and `repliers` are updated. A comment that is not on this change request answers 404. The
         *     `format` parameter chooses the form of the answered reply's body. The caller needs the `comment` role (or
         *     higher) on the space.
         */
        post: operations["postCommentReplyInChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        /**
         * Get a reply to a comment of a change request
         * @description Answers one reply to a comment posted on the change request, as getCommentReplyInSpace does. A comment
         *     that is not on this change request answers 404. The `format` parameter chooses the form of its body. The
         *     caller needs to be able to view the space.
         */
        get: operations["getCommentReplyInChangeRequest"];
        /**
         * Update a reply to a comment of a change request
         * @description Changes a reply to a comment posted on the change request and answers it, as updateCommentReplyInSpace
         *     does. A comment that is not on this change request answers 404. `body` replaces its content and sets
         *     `editedAt`; only the author may change it. `addedReactions` adds the caller's reaction with each emoji and
         *     `removedReactions` removes it; adding a reaction the caller already has, or removing one they do not have,
         *     changes nothing, and an emoji in both lists is removed. Reacting needs the `comment` role (or higher) on
         *     the space. At least one field is required. A reply has no status of its own: resolving is done on its
         *     comment.
         */
        put: operations["updateCommentReplyInChangeRequest"];
        post?: never;
        /**
         * Delete a reply to a comment of a change request
         * @description Deletes a reply to a comment posted on the change request and answers 205; the comment's `replies` count
         *     and `repliers` are updated. Only the author of the reply or an admin of the space may delete it. A reply
         *     that does not exist (or was already deleted) answers 204 and changes nothing; a space, change request or
         *     comment of it that the caller cannot see answers 404.
         */
        delete: operations["deleteCommentReplyInChangeRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/contributors": {
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
         * List the contributors of a change request
         * @description Answers who took part in the change request, one item per person and kind of contribution, the latest
         *     contribution first. `edit`: creating the change request and each revision of its content that the person
         *     made (edits, templates applied, updates from the main content); `comment`: each comment posted on the
         *     change request and each reply to one. `count` is how many such contributions the person made and
         *     `updatedAt` when they made the last. Someone who edited and commented has one item of each. The caller
         *     needs to be able to view the space.
         */
        get: operations["getContributorsByChangeRequestId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         *     and insert files, and insert, update or delete reusable contents. The changes apply in order, each seeing the result of the previous ones, and all or
         *     nothing: if any change is invalid (an unknown page, a slug already used among siblings, a move under the
         *     page itself...), the answer is 400 naming the change (for example `changes[3].page`) and nothing is
         *     changed. A valid batch makes exactly one new revision of type `edits`, which becomes the change
         *     request's `revision`.
         *
         *     Page content is given as Markdown (`document.markdown`) and replaces the whole content of the page; see
         *     `PageDocumentInput` for how links are resolved. A `ref` given to an inserted page or file lets later
         *     changes of the batch point at it (as `into`, as `page` of an update, or in `ref:<label>` links) and
         *     finds the created page again in the answer. Files are given inline in base64 or by URL, at most 1 MB each
         *     and 20 per change; the whole body must also stay under the request size limit (413), which for this
         *     operation is at least 2 MB so that a file of the largest size fits inline (base64 makes it a third larger)
         *     with the changes around it: an editor uploads a pasted image in one batch.
         *
         *     Needs the `edit` permission of the space; a locked space refuses edits (403). A merged or archived
         *     change request refuses edits (409).
         *
         *     `revision` makes the batch conditional, as `If-Match` does for a document: given the id of the revision
         *     the caller's changes were made against (the change request's `revision` when it read the content), the
         *     batch is applied only if that is still the change request's current revision; when anyone edited the
         *     change request since, the answer is 412 and nothing is changed. An editor saving as one types uses it so
         *     that an edit made elsewhere in the meantime is shown to the writer rather than overwritten. Without it,
         *     the batch applies to whatever the current content is.
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
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{pagePath}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a change request by its path
         * @description Answers the page of the current content of the change request whose `path` is `pagePath`, with its
         *     content, as `getPageInChangeRequestById` does. Only document and group pages have a path. Needs read
         *     access to the space.
         */
        get: operations["getPageInChangeRequestByPath"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a reusable content of a change request
         * @description Answers one reusable content of the content of the change request (its current revision) with its body
         *     as Markdown, as `getReusableContentById` does for the main content. Needs read access to the space.
         *     `metadata` false leaves out `git`; `computed` is accepted and changes nothing, as Quire's reusable
         *     contents are never computed from a source.
         */
        get: operations["getReusableContentInChangeRequestById"];
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
         *     content. Use `status` `broken` to find links whose target no longer exists, and `brokenContext` to tell
         *     apart the broken links the change request introduces from all those of its content. Needs read access
         *     to the space.
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
         *
         *     One PDF holds at most 1,000,000 characters of markdown, all its pages together (one page at the page
         *     limit, so every page can be printed on its own): past it the answer is 422, whose message says to ask for
         *     part of the content with `page` (and `only`). Rendering takes time in proportion to the markdown:
         *     seconds to tens of seconds at the limit, with formatting and load (measured figures in the server's
         *     README, "Content limits"); a PDF that takes more than 120 seconds is given up with 503.
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
         *     can see the space (400 otherwise, naming the first that is not, and nothing changes); users already
         *     asked stay as they were. `subject` and `description`, when given, update the change request as
         *     updateChangeRequestById does, in the same transaction. Needs the `edit` permission of the space. A
         *     merged or archived change request takes no new reviewers (409). Answers the review requests of the
         *     users listed, as getRequestedReviewersByChangeRequestId shows them.
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
         * @description Answers the reviews of the change request, oldest first: all of them, outdated ones included (with
         *     `outdated` true), unless `outdated` asks for only those given on an earlier revision (`true`) or only
         *     those given on the current one (`false`). `format` chooses the form of each review's comment body.
         *     Needs read access to the space.
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
    "/spaces/{spaceId}/content/computed/document": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compute a document of a space
         * @description Computes a document from a source and answers it, changing nothing. Quire computes the documents of
         *     `builtin:openapi`: with `props.doc = info`, the introduction of the reference of the organization's
         *     OpenAPI specification named by `dependencies.spec.ref.spec` (its latest processed version); with
         *     `props.doc = operations` and `props.page = <tag>`, the operations of that tag, as the pages the
         *     `openapi-reference` template makes. `props.doc = models` and every other source type answer 422 (Quire
         *     does not compute them), as do a specification without a processed version, a tag the specification
         *     lacks and a specification that is not OpenAPI. `seed` is accepted and has no effect: documents hold no
         *     generated ids. Needs read access to the space.
         */
        post: operations["getComputedDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/computed/revision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compute the pages of a space's computed content
         * @description Computes the pages, files and reusable contents a source produces and answers them, changing nothing:
         *     what a computed page of the space would hold below it. Quire computes `builtin:openapi`: the reference of
         *     the organization's OpenAPI specification named by `dependencies.spec.ref.spec` (its latest processed
         *     version), one document page per tag of the specification holding its operations, with the markdown of
         *     each, as the pages the `openapi-reference` template makes; such a source produces no files and no
         *     reusable contents. `props.models` must be given: `false` computes the pages of the operations, `true`
         *     asks for a page of the models too, which Quire does not compute (422). `seed` makes the ids of the pages:
         *     the same seed and specification give the same ids, as a template applied with that seed does. Every other
         *     source type answers 422 (Quire does not compute them), as do a specification without a processed version
         *     and a text that is not OpenAPI. Needs read access to the space.
         */
        post: operations["getComputedRevision"];
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
    "/spaces/{spaceId}/content/path/{pagePath}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a space by its path
         * @description Answers the page of the current main content of the space whose `path` is `pagePath`, with its
         *     content, as `getPageById` does. Only document and group pages have a path (link entries have none).
         *     Needs read access to the space.
         */
        get: operations["getPageByPath"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/content/reusable-contents/{reusableContentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a reusable content of the space
         * @description Answers one reusable content of the main content of the space (its current revision) with its body as
         *     Markdown. An id that no reusable content of that revision has is a 404. Needs read access to the space.
         *     `metadata` false leaves out `git`; `computed` is accepted and changes nothing, as Quire's reusable
         *     contents are never computed from a source.
         */
        get: operations["getReusableContentById"];
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
    "/spaces/{spaceId}/documents/{documentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a document of a space
         * @description Answers a document of the space, the content of a page as a rich document, by the `documentId` that a
         *     page read on its own carries. A document id names the content of a page in one revision, so it keeps
         *     answering the same document after the page changes. Needs read access to the space.
         */
        get: operations["getDocumentById"];
        put?: never;
        post?: never;
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
    "/spaces/{spaceId}/revisions/{revisionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a revision of a space
         * @description Answers one revision of the space, as `getCurrentRevision` answers the current one: its page tree
         *     (without page content), its files, its parents and, for a merge, the change request it merged. Any
         *     revision of the space can be read, earlier ones and those of its change requests included; revisions never
         *     change. A revision of another space is a 404 like a missing one. Needs read access to the space.
         */
        get: operations["getRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List what a revision changed
         * @description Answers what the revision changed from its first parent (the revision it was made from; for a merge, the
         *     main content before it): pages created, edited, moved and deleted, then files created, edited and
         *     deleted. The first revision of a space changed everything from nothing. A merge revision also names the
         *     change request it merged. `metadata` and `computed` are accepted as on the other revision reads;
         *     computed pages are named as the pages they produce unless `computed` is false. Needs read access to the
         *     space.
         */
        get: operations["getRevisionSemanticChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the files of a revision
         * @description Lists the files of one revision of the space by name, as `listFiles` does for the current revision. Needs read access to the space.
         */
        get: operations["listFilesInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file of a revision
         * @description Answers one file of one revision of the space, with the URL to download it from. Needs read access to the space.
         */
        get: operations["getFileInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a revision
         * @description Answers one page of one revision of the space with its content, as `getPageById` does for the current
         *     revision: `format` `document` fills `document`; `markdown`, or no `format`, fills `markdown`.
         *     Needs read access to the space.
         */
        get: operations["getPageInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the document of a page of a revision
         * @description Answers the content of one page of one revision of the space as a rich document alone (what
         *     `getPageInRevisionById` puts in `document` with `format` `document`). A page without content of its
         *     own (a group or a link) has no document: 404. Needs read access to the space.
         */
        get: operations["getPageDocumentInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/pages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the pages of a revision
         * @description Answers the page tree of one revision of the space, top-level pages first, each holding its children,
         *     as `listPages` does for the current revision. Page content is not included. Needs read access to the
         *     space.
         */
        get: operations["listPagesInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a page of a revision by its path
         * @description Answers the page of one revision of the space whose `path` is `pagePath`, with its content, as
         *     `getPageInRevisionById` does. Only document and group pages have a path (link entries have none).
         *     Needs read access to the space.
         */
        get: operations["getPageInRevisionByPath"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a reusable content of a revision
         * @description Answers one reusable content of one revision of the space (the current one, an earlier one or a change
         *     request's) with its body as Markdown, as `getReusableContentById` does for the current revision. A revision
         *     of another space, or an id the revision has no reusable content for, is a 404. Needs read access to the
         *     space.
         *     `metadata` false leaves out `git`; `computed` is accepted and changes nothing, as Quire's reusable
         *     contents are never computed from a source.
         */
        get: operations["getReusableContentInRevisionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the document of a reusable content of a revision
         * @description Answers the body of one reusable content of one revision of the space as a rich document (an empty
         *     reusable content has a document with no nodes). `evaluated` replaces the variable expressions of the body
         *     whose variable is defined (a reusable content has no page variables, so only space variables count, and
         *     a space defines none: the body is answered as written). Needs read access to the space.
         */
        get: operations["getReusableContentDocumentInRevisionById"];
        put?: never;
        post?: never;
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
         *
         *     Within an open site, the address's path may answer a redirect with target `content` instead: the source of
         *     one of the site's redirects, or the old path of a moved page (see `PublishedContentRedirect`).
         */
        get: operations["getPublishedContentByUrl"];
        put?: never;
        /**
         * Resolve the address of a published docs site (POST)
         * @description The same lookup as `getPublishedContentByUrl`, with the visitor in the body rather than the query, where a
         *     JWT and unsigned claims stay out of access logs: `visitor.jwtToken` is the `visitorAuthToken`, and
         *     `visitor.unsignedClaims` are unsigned claims beside (and over) the `visitor.<name>` parameters of `url`.
         *     The answers, the optional bearer token and `redirectOnError` are those of the GET.
         */
        post: operations["resolvePublishedContentByUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/urls/embed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Embed a web page by its URL
         * @description Fetches the page server-side through Quire's guard against server-side request forgery (http and https
         *     only; loopback, private and link-local addresses refused unless the operator sets
         *     `QUIRE_ALLOW_LOCAL_URLS=true`; every redirect checked again, at most 5; at most 1 MiB read and 10 s) and
         *     answers how a link to it shows. A page that answers an error or is not HTML is shown by its URL. A URL the
         *     guard refuses, or that cannot be fetched, is a 400 naming the reason.
         */
        get: operations["getEmbedByUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/urls/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find the content an app address points at
         * @description Reads an address of this Quire's app (a `urls.app` that Quire answers) and answers what it points at:
         *     a collection (`/o/{organizationId}/c/{collectionId}`), or a space (`/o/{organizationId}/s/{spaceId}`) with,
         *     when the address names them, a change request of the space (`.../~/changes/{number}`) and a page of its
         *     main content or of that change request's, by path (`.../{page path}`) or by id (`.../~/pages/{pageId}`).
         *     The page is answered without its content; a link entry of the table of contents is not content and
         *     answers 404. The query and fragment of the address are ignored.
         *
         *     400 when `url` is not an address of this Quire's app (another host, another scheme, or a path that names
         *     no collection or space, such as an organization's or a site's page); 404 when it names something that
         *     does not exist or that the caller cannot see, exactly like a missing one.
         */
        get: operations["getContentByUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/embed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Embed a web page by its URL in a space
         * @description Fetches the page server-side through Quire's guard against server-side request forgery (http and https
         *     only; loopback, private and link-local addresses refused unless the operator sets
         *     `QUIRE_ALLOW_LOCAL_URLS=true`; every redirect checked again, at most 5; at most 1 MiB read and 10 s) and
         *     answers how a link to it shows. A page that answers an error or is not HTML is shown by its URL. A URL the
         *     guard refuses, or that cannot be fetched, is a 400 naming the reason.
         *
         *     The same as `getEmbedByUrl`, for a space the caller can see (404 otherwise, like a missing space).
         */
        get: operations["getEmbedByUrlInSpace"];
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
    "/spaces/{spaceId}/pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a PDF of the content of a space
         * @description Makes a PDF of the main content of the space (its current revision) and answers the URL to download it
         *     from, as `getChangeRequestPDF` does for a change request. By default the PDF holds every page. With
         *     `page`, it holds that page and its descendants; with `only` as well, just that page. `only` without
         *     `page` is refused (400), and a `page` absent from the space's content answers 404. Needs read access to
         *     the space; a published site's visitor token is refused (403).
         *
         *     One PDF holds at most 1,000,000 characters of markdown, all its pages together: past it the answer is
         *     422, whose message says to ask for part of the content with `page` (and `only`). Rendering takes time in
         *     proportion to the markdown (seconds to tens of seconds at the limit); a PDF that takes more than 120
         *     seconds is given up with 503. The URL is signed and stays valid for a limited time.
         */
        get: operations["getSpacePDF"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        /**
         * Get a user
         * @description Answers a user: the caller themself, or someone who belongs to an organization the caller belongs to (as a
         *     member or a guest). Anyone else answers 404, exactly like an unknown id. The e-mail address is shown to
         *     the user and to admins of an organization they share.
         */
        get: operations["getUserById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a user
         * @description Changes the name or the picture of a user. Only the user changes their own profile: another user one
         *     can read (getUserById) answers 403, anyone else 404.
         */
        patch: operations["updateUserById"];
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
        get?: never;
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
         * @description Removes the user's grant on the space, at once: 205 when there was one, 204 when there was none (the
         *     user has no grant here either way). Needs the `admin` permission of the space.
         */
        delete: operations["removeUserFromSpace"];
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
         * @description Removes the team's grant on the space, at once: 205 when there was one, 204 when there was none (the
         *     team has no grant here either way). Needs the `admin` permission of the space.
         */
        delete: operations["removeTeamFromSpace"];
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
        get?: never;
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
         * @description Removes the user's grant on the collection, at once: 205 when there was one, 204 when there was none (the
         *     user has no grant here either way). Needs the `admin` permission of the collection.
         */
        delete: operations["removeUserFromCollection"];
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
         * @description Removes the team's grant on the collection, at once: 205 when there was one, 204 when there was none (the
         *     team has no grant here either way). Needs the `admin` permission of the collection.
         */
        delete: operations["removeTeamFromCollection"];
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
    "/spaces/{spaceId}/permissions/users": {
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
         * List the users granted a role on a space
         * @description Answers the roles granted directly on the space to users (not those granted to their teams or on
         *     collections above it), oldest grant first. Needs the `admin` permission of the space.
         */
        get: operations["listUserPermissionsInSpace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/permissions/teams": {
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
         * List the teams granted a role on a space
         * @description Answers the roles granted directly on the space to teams of the organization (not those granted on
         *     collections above it), oldest grant first. Needs the `admin` permission of the space.
         */
        get: operations["listTeamPermissionsInSpace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spaces/{spaceId}/permissions/aggregate": {
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
         * List every user with access to a space and their role
         * @description Answers every member or guest of the organization who can see the space, with their effective role on
         *     it: the highest of their organization role (through the default levels of the space and the collections
         *     above it) and the roles granted to them or their teams on it and on those collections, as every request
         *     they make is decided. Ordered by user id. Needs the `admin` permission of the space.
         */
        get: operations["listPermissionsAggregateInSpace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/permissions/users": {
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
         * List the users granted a role on a collection
         * @description Answers the roles granted directly on the collection to users (not those granted to their teams or on
         *     collections above it), oldest grant first. Needs the `admin` permission of the collection.
         */
        get: operations["listUserPermissionsInCollection"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/permissions/teams": {
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
         * List the teams granted a role on a collection
         * @description Answers the roles granted directly on the collection to teams of the organization (not those granted on
         *     collections above it), oldest grant first. Needs the `admin` permission of the collection.
         */
        get: operations["listTeamPermissionsInCollection"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/collections/{collectionId}/permissions/aggregate": {
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
         * List every user with access to a collection and their role
         * @description Answers every member or guest of the organization who can see the collection, with their effective role on
         *     it: the highest of their organization role (through the default levels of the collection and the collections
         *     above it) and the roles granted to them or their teams on it and on those collections, as every request
         *     they make is decided. Ordered by user id. Needs the `admin` permission of the collection.
         */
        get: operations["listPermissionsAggregateInCollection"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/insights/events": {
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
        get?: never;
        put?: never;
        /**
         * Record what visitors did on a site
         * @description Records a batch of at most 100 events of the site's visitors (page views, searches, feedback, link
         *     clicks...), for `aggregateSiteEvents`. Each event's `timestamp` must be within 5 minutes of the time the
         *     request arrives (400 otherwise: the whole batch is refused, nothing recorded); events are kept 366 days.
         *     Quire keeps no personal data of visitors: their `visitorId` and `sessionId` only as hashes keyed by a
         *     secret of the server, no IP address, cookies, tokens, claims or user-agent strings (only the device,
         *     browser, operating system and crawler read from them), and addresses without their query and fragment.
         *     The ids of `location` are recorded as sent. Needs to be a member of the site's organization (anyone else:
         *     404); the site need not be published.
         */
        post: operations["trackEventsInSiteById"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate": {
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
        get?: never;
        put?: never;
        /**
         * Aggregate the events of a site's visitors
         * @description Answers a question over the events `trackEventsInSiteById` recorded (see `SiteInsightsAggregation`):
         *     counts of events, sessions and visitors and the ratings of pages, grouped by up to 5 columns, over at
         *     most 366 days, at most 1000 rows. Changes nothing. Needs to be a member of the site's organization
         *     (anyone else: 404).
         */
        post: operations["aggregateSiteEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orgs/{organizationId}/sites/{siteId}/permissions/aggregate": {
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
        /**
         * List every user with access to a site and their role
         * @description Answers every member or guest of the organization who reads the site, with their highest role on it and
         *     where that role comes from: the organization (`origin.type` `organization`, their organization role, null
         *     for a guest) or one of the spaces the site publishes (`origin.type` `space`, their role on that space, when
         *     it is higher). Ordered by user id. Needs the organization's `admin` role, as every change of a site does.
         */
        get: operations["listPermissionsAggregateInSite"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
        /** @description The secret of an invitation, the last segment of its join address (`<public URL>/join/<secret>`). */
        InviteSecret: string;
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
        /**
         * @description A role in an organization, collection or space, from most to least powerful:
         *     `admin` administrates content and creates and deletes spaces, `create` creates content, `review` reviews
         *     content, `edit` edits live content or change requests, `comment` reads content and takes part in
         *     discussions, `read` only reads.
         * @enum {string}
         */
        MemberRole: "admin" | "create" | "review" | "edit" | "comment" | "read";
        /** @description A member's role, or `null` for a guest, who has no organization-wide role. */
        MemberRoleOrGuest: components["schemas"]["MemberRole"] | null;
        /** @description The account an accepted invitation made, and the membership it holds. */
        OrganizationInviteAcceptance: {
            /** @constant */
            readonly object: "organization-invite-acceptance";
            user: components["schemas"]["User"];
            /** @description Id of the organization joined. */
            organizationId: string;
            role: components["schemas"]["MemberRoleOrGuest"];
        };
        /** @description The space or collection an invite link gives access to, as the join page names it. */
        InvitedContent: {
            /** @description Id of the space or collection. */
            id: string;
            /** @description Its title. */
            title: string;
        };
        /**
         * @description What an invitation offers, for the page its join address opens: the organization and the role in it (null:
         *     as a guest) and, for a link to one space or collection, that content (`space` or `collection`) and the
         *     `level` given on it.
         */
        OrganizationInvitePreview: {
            /** @constant */
            readonly object: "organization-invite-preview";
            organization: {
                /** @description Id of the organization. */
                id: string;
                /** @description Name of the organization. */
                title: string;
            };
            role: components["schemas"]["MemberRoleOrGuest"];
            space?: components["schemas"]["InvitedContent"];
            collection?: components["schemas"]["InvitedContent"];
            level?: components["schemas"]["MemberRole"];
            /**
             * Format: email
             * @description The address invited (invitations by e-mail only); the account made on acceptance has it.
             */
            email?: string;
            /**
             * Format: date-time
             * @description After this moment the invitation lets nobody join.
             */
            expiresAt: string;
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
        /**
         * @description The ways a person can sign in to this installation, as a sign-in page shows them: with a password, through
         *     the installation's OpenID Connect provider when one is configured, and through the SAML providers of the
         *     organizations that declare the person's e-mail domain (when an address is given).
         */
        SignInProviders: {
            /** @constant */
            readonly object: "sign-in-providers";
            /** @description Whether people can sign in with an e-mail address and a password (`signIn`). */
            readonly password: boolean;
            /** @description The installation's OpenID Connect provider, or null when none is configured. */
            oidc: {
                /** @description What to call the provider on a sign-in page (`QUIRE_OIDC_NAME`, or the issuer's host). */
                readonly name: string;
                /**
                 * Format: uri
                 * @description Where the browser goes to sign in through the provider. Add `?return=<path>` (a path of this
                 *     installation) to come back there once signed in.
                 */
                readonly startURL: string;
            } | null;
            /**
             * @description The active SAML providers of the organizations whose `emailDomains` hold the domain of the `email`
             *     asked about, oldest first; empty when no `email` is given.
             */
            readonly saml: components["schemas"]["SSOProviderLogin"][];
        };
        /** @description A browser session of the caller, opened by signing in (password, SAML or OpenID Connect). */
        Session: {
            /** @constant */
            readonly object: "session";
            /** @description Opaque identifier of the session (not its secret, which only the cookie holds). */
            readonly id: string;
            /**
             * @description How the person signed in.
             * @enum {string}
             */
            readonly method: "password" | "saml" | "oidc";
            /** Format: date-time */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description When the session was last used (recorded at most once a minute).
             */
            readonly lastUsedAt: string;
            /**
             * Format: date-time
             * @description When the session ends unless it is used before then (the earlier of its idle and absolute expiry).
             */
            readonly expiresAt: string;
            /** @description The `User-Agent` of the browser that signed in, if it sent one. */
            readonly userAgent: string | null;
            /** @description Whether this is the session of the request. */
            readonly current: boolean;
        };
        /**
         * @description The browser session of a signed-in person: the session, its user, and the CSRF token that unsafe requests
         *     made with the session cookie send in `X-CSRF-Token`.
         */
        AuthSession: {
            /** @constant */
            readonly object: "auth-session";
            session: components["schemas"]["Session"];
            user: components["schemas"]["User"];
            /** @description The session's CSRF token: send it as `X-CSRF-Token` with every POST, PUT, PATCH and DELETE made with the cookie. */
            readonly csrfToken: string;
        };
        /** @description The password was right and the account has a second factor; sign in again with `code`. */
        SignInChallenge: {
            /** @constant */
            readonly object: "sign-in-challenge";
            /**
             * @description The second factor to give as `code` (a code of the authenticator app, or a recovery code).
             * @enum {string}
             */
            secondFactor: "totp";
        };
        /** @description Where the following page of a list starts. Absent on the last page. */
        ListNext: {
            /** @description Opaque cursor; pass it back as the `page` query parameter to fetch the following page. */
            page: string;
        };
        /** @description One page of the caller's sessions, newest first. */
        SessionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["Session"][];
        };
        /** @description A second factor being set up; shown once. Add it to an authenticator app, then confirm it with a first code. */
        TotpEnrollment: {
            /** @description The TOTP secret (base32), to type into an authenticator app. */
            readonly secret: string;
            /** @description The same secret as an `otpauth://totp/...` URL, to show as a QR code. */
            readonly otpauthUrl: string;
        };
        /** @description The recovery codes of a second factor, shown this once; each signs in once in place of a code. */
        TotpRecoveryCodes: {
            readonly recoveryCodes: string[];
        };
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
        /** @description An invitation by e-mail, as `inviteUsersToOrganization` made it. */
        OrganizationEmailInvite: {
            /** @constant */
            readonly object: "email-invite";
            /** @description Id of the invite; `deleteOrganizationInviteById` revokes it. */
            readonly id: string;
            /**
             * Format: email
             * @description The address invited.
             */
            email: string;
            role: components["schemas"]["MemberRoleOrGuest"];
            /**
             * Format: date-time
             * @description After this moment the invitation lets nobody join.
             */
            expiresAt: string;
            /**
             * Format: uri
             * @description The join address, holding the invitation's secret, for the admin to pass on: present only when Quire has
             *     no mail server (`QUIRE_SMTP_URL` unset). With one, the address goes to the person by mail and to nobody else.
             */
            url?: string;
        };
        /** @description One page of a list of invitations by e-mail. */
        OrganizationEmailInviteList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["OrganizationEmailInvite"][];
        };
        /** @description What `inviteUsersToOrganization` did. */
        OrganizationInvitesSent: {
            /**
             * @description Ids of the users added to the organization by this request: always empty, since nobody joins before
             *     accepting their invitation (`acceptOrganizationInvite`, or `joinOrganizationWithInvite` when signed in).
             */
            users: string[];
            /** @description How many invitations were made (addresses of members already in the organization get none). */
            invited: number;
            /** @description The invitations made, one per address invited. */
            invites: components["schemas"]["OrganizationEmailInvite"][];
        };
        /**
         * @description An invitation to join the organization with a role: a link anyone holding it can use (up to `maxUses` people),
         *     or an invitation by e-mail for one person (`inviteUsersToOrganization`). Its secret join address is answered
         *     once, by the operation that makes it (`url`).
         */
        InviteLinkToOrganization: {
            /** @constant */
            readonly object: "invite";
            /** @description Opaque identifier of the invite (not its secret). */
            readonly id: string;
            role: components["schemas"]["MemberRoleOrGuest"];
            /** @description Whether the caller already has at least the role the invite gives. */
            readonly redundant: boolean;
            /**
             * Format: date-time
             * @description When the invite was made.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description After this moment the invite lets nobody join.
             */
            expiresAt: string;
            /** @description How many people may join with the invite; null for no limit. */
            maxUses: number | null;
            /** @description How many people have joined with it. */
            readonly uses: number;
            /**
             * Format: uri
             * @description The join address, holding the invite's secret: answered only by `createOrganizationInvite`, once. Quire
             *     keeps only the secret's hash, so a lost address cannot be shown again: delete the invite and make another.
             */
            readonly url?: string;
        };
        /** @description One page of a list of the organization's invite links to itself (not to one space or collection). */
        OrganizationInviteLinkList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["InviteLinkToOrganization"][];
        };
        /**
         * Format: date-time
         * @description When the link stops working; in the future, at most a year ahead (30 days when omitted).
         */
        InviteExpiresAt: string;
        /** @description How many people may join with the link (no limit when omitted). */
        InviteMaxUses: number;
        /** @description An invite link to the organization, with the role the people joining with it get. */
        CreateInviteToOrganization: {
            role: components["schemas"]["MemberRoleOrGuest"];
            expiresAt?: components["schemas"]["InviteExpiresAt"];
            maxUses?: components["schemas"]["InviteMaxUses"];
        };
        /**
         * @description An invite link to one space of the organization: the people joining with it become guests of the
         *     organization (members keep their role) with `level` on the space.
         */
        CreateInviteToSpace: {
            level: components["schemas"]["MemberRole"];
            /** @description Id of the space, which must be in the organization. */
            space: string;
            expiresAt?: components["schemas"]["InviteExpiresAt"];
            maxUses?: components["schemas"]["InviteMaxUses"];
        };
        /**
         * @description An invite link to one collection of the organization: the people joining with it become guests of the
         *     organization (members keep their role) with `level` on the collection and everything in it.
         */
        CreateInviteToCollection: {
            level: components["schemas"]["MemberRole"];
            /** @description Id of the collection, which must be in the organization. */
            collection: string;
            expiresAt?: components["schemas"]["InviteExpiresAt"];
            maxUses?: components["schemas"]["InviteMaxUses"];
        };
        /** @description An invite link to the organization, to one of its spaces or to one of its collections. */
        CreateOrganizationInvite: components["schemas"]["CreateInviteToOrganization"] | components["schemas"]["CreateInviteToSpace"] | components["schemas"]["CreateInviteToCollection"];
        /**
         * @description An invite link to one space of the organization: the people joining
         *     with it become guests of the organization (members keep their role) with `level` on the space. Its secret
         *     join address is answered once, by the operation that makes it (`url`).
         */
        InviteLinkToSpace: {
            /** @constant */
            readonly object: "invite";
            /** @description Opaque identifier of the invite (not its secret). */
            readonly id: string;
            level: components["schemas"]["MemberRole"];
            /** @description Whether the caller already has at least `level` on the space. */
            readonly redundant: boolean;
            space: components["schemas"]["Space"];
            /**
             * Format: date-time
             * @description When the invite was made.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description After this moment the invite lets nobody join.
             */
            expiresAt: string;
            /** @description How many people may join with the invite; null for no limit. */
            maxUses: number | null;
            /** @description How many people have joined with it. */
            readonly uses: number;
            /**
             * Format: uri
             * @description The join address, holding the invite's secret: answered only by `createOrganizationInvite`, once. Quire
             *     keeps only the secret's hash, so a lost address cannot be shown again: delete the invite and make another.
             */
            readonly url?: string;
        };
        /**
         * @description An invite link to one collection of the organization (and all in it): the people joining
         *     with it become guests of the organization (members keep their role) with `level` on the collection. Its secret
         *     join address is answered once, by the operation that makes it (`url`).
         */
        InviteLinkToCollection: {
            /** @constant */
            readonly object: "invite";
            /** @description Opaque identifier of the invite (not its secret). */
            readonly id: string;
            level: components["schemas"]["MemberRole"];
            /** @description Whether the caller already has at least `level` on the collection. */
            readonly redundant: boolean;
            collection: components["schemas"]["Collection"];
            /**
             * Format: date-time
             * @description When the invite was made.
             */
            readonly createdAt: string;
            /**
             * Format: date-time
             * @description After this moment the invite lets nobody join.
             */
            expiresAt: string;
            /** @description How many people may join with the invite; null for no limit. */
            maxUses: number | null;
            /** @description How many people have joined with it. */
            readonly uses: number;
            /**
             * Format: uri
             * @description The join address, holding the invite's secret: answered only by `createOrganizationInvite`, once. Quire
             *     keeps only the secret's hash, so a lost address cannot be shown again: delete the invite and make another.
             */
            readonly url?: string;
        };
        /** @description An invite link to the organization, to one of its spaces or to one of its collections. */
        OrganizationInviteLink: components["schemas"]["InviteLinkToOrganization"] | components["schemas"]["InviteLinkToSpace"] | components["schemas"]["InviteLinkToCollection"];
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
         *     `certificate` describe the identity provider: `ssoURL` is given when the provider is created, the other two
         *     are empty until set; `service` describes the Quire side, to be entered in the identity provider.
         */
        SAMLProvider: {
            /** @constant */
            readonly object: "saml-provider";
            /** @description Opaque identifier of the SAML provider. */
            readonly id: string;
            /** @description Name of the provider shown on the login page. */
            label: string;
            /**
             * @description URL of the identity provider's single sign-on endpoint. Required when a provider is created; only a
             *     provider created by an earlier Quire without one answers an empty string, until it is set.
             */
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
        /** @description A space with pages matching a search of its organization, its best matching pages first. */
        SearchSpaceResult: {
            /** @description Id of the space. */
            readonly id: string;
            /** @description Title of the space. */
            readonly title: string;
            /** @description The best matching pages of the space (at most 10), each with its matching sections. */
            readonly pages: components["schemas"]["SearchResult"][];
        };
        /** @description One page of the spaces matching a search of an organization, best match first. */
        SearchSpaceResultList: {
            next?: components["schemas"]["ListNext"];
            /** @description Number of spaces that match, among the ranked candidates (see the operation). */
            count: number;
            items: components["schemas"]["SearchSpaceResult"][];
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
        /** @description An image to store for a site's customization (logo or icon). */
        SiteCustomizationImageUpload: {
            /** @description The file's name, kept for downloads; `image` when absent. */
            name?: string;
            /** @description The media type the sender declares; when given, it must be the type the bytes show. */
            contentType?: string;
            /**
             * @description The image's bytes in base64 (at most 1 MiB once decoded).
             * @example iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==
             */
            base64: string;
        };
        /** @description An image stored for a site's customization. */
        SiteCustomizationImage: {
            /** @enum {string} */
            object: "site-customization-image";
            /** @description Id of the image. */
            id: string;
            /**
             * Format: uri
             * @description The address readers load it from, under the site's address; what `header.logo` or `favicon.icon` takes.
             */
            url: string;
            /**
             * Format: uri
             * @description A signed address of the bytes, good for about an hour.
             */
            downloadURL: string;
            /**
             * @description Media type of the image, as its bytes show.
             * @enum {string}
             */
            contentType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
            /** @description Size in bytes. */
            size: number;
            /** @description Size of the image in pixels. */
            dimensions: {
                width: number;
                height: number;
            };
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
        /**
         * @description The visitor authentication of a `visitor-auth` site. Visitors without a valid JWT are sent to `fallbackURL`
         *     with `?location=<the address they asked for>`; the organization's backend signs them in its own way, signs a
         *     JWT (HS256, with `exp`) with `privateKey` and sends them back to that address with `?jwt_token=<jwt>`.
         */
        SitePublishingAuth: {
            /** @constant */
            readonly object: "publishing-auth";
            /**
             * @description Who signs visitors in: always `custom` (the organization's own backend) on a self-hosted Quire, which
             *     installs no visitor-authentication integrations on sites.
             * @constant
             */
            backend: "custom";
            /** @description The 256-bit key, base64url, that the backend signs visitors' JWTs with (HS256). Kept sealed. */
            readonly privateKey: string;
            /**
             * Format: uri
             * @description The address visitors without a valid JWT are sent to, to sign in. Absent until set.
             */
            fallbackURL?: string;
        };
        /** @description A change of the visitor authentication of a site. */
        SitePublishingAuthUpdate: {
            /**
             * @description `custom`: the organization's own backend signs visitors in. `integration` is refused (400): a self-hosted
             *     Quire installs no integrations on sites, so none can sign its visitors in.
             * @enum {string}
             */
            backend: "custom" | "integration";
            /** @description The address visitors without a valid JWT are sent to; null removes it; omitted leaves it as it is. */
            fallbackURL?: string | null;
        };
        /** @description Which site spaces a search of a site covers. */
        SiteSearchScope: {
            /**
             * @description The default site space of each section.
             * @constant
             */
            mode: "default";
            /** @description A site space searched as well. */
            currentSiteSpace?: string;
        } | {
            /** @constant */
            mode: "specific";
            siteSpaceIds: string[];
        } | {
            /**
             * @description Every site space of the site.
             * @constant
             */
            mode: "all";
        };
        /** @description One page of the results of a search of a site, one item per space with matching pages, in the site's order. */
        SiteSearchResultList: {
            next?: components["schemas"]["ListNext"];
            items: {
                /** @description Id of the space. */
                readonly id: string;
                /** @description Title of the space. */
                readonly title: string;
                /** @description The space's best matching pages, best first (at most 20). */
                readonly pages: components["schemas"]["SearchResult"][];
            }[];
        };
        /** @description One page of a list of site section groups. */
        SiteSectionGroupList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteSectionGroup"][];
        };
        /** @description Points at a section or a section group of a site. */
        SiteSectionGroupPointer: {
            /** @enum {string} */
            type: "site-section" | "site-section-group";
            /** @description Id of a section or section group of the same level. */
            id: string;
        };
        /** @description One page of a list of site sections. */
        SiteSectionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteSection"][];
        };
        /** @description Points at a section of a site. */
        SiteSectionPointer: {
            /** @constant */
            type: "site-section";
            /** @description Id of a section of the same level. */
            siteSection: string;
        };
        /**
         * @description A path of the site, from the site's own address: a leading `/`, then segments of unreserved characters
         *     (letters, digits, `-`, `.`, `_`, `~`) or percent-encoded bytes, joined by single slashes, with no trailing
         *     slash, query or fragment. A segment `.` or `..` alone is refused too (browsers resolve them away, so no
         *     visitor could ask for such a source), though the public pattern lets them through. A visitor who opens `<site address><source>` is sent to the destination.
         * @example /old/setup
         */
        SiteRedirectSourcePath: string;
        /** @description Where a site redirect sends visitors, inside the same site. */
        SiteRedirectDestination: {
            /** @constant */
            kind: "site-section";
            /** @description Id of a section of the site; visitors land on its address. */
            siteSectionId: string;
        } | {
            /** @constant */
            kind: "site-space";
            /** @description Id of a site space of the site; visitors land on its address. */
            siteSpaceId: string;
        } | {
            /** @constant */
            kind: "site-page";
            /** @description Id of the site space of the page. */
            siteSpaceId: string;
            /** @description Id of a page of that site space's space; visitors land on its address in the published revision. */
            pageId: string;
        };
        /** @description A path of a docs site that sends its visitors elsewhere in the site. */
        SiteRedirect: {
            /** @constant */
            readonly object: "site-redirect";
            /** @description Unique id of the redirect. */
            readonly id: string;
            source: components["schemas"]["SiteRedirectSourcePath"];
            destination: components["schemas"]["SiteRedirectDestination"];
        };
        /** @description One page of a list of site redirects. */
        SiteRedirectList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["SiteRedirect"][];
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
         * @description The whole structure of a docs site, in its order: `sections` when the site has sections (its sections and
         *     section groups at the root, groups holding their children), else `siteSpaces` (the site spaces of its root).
         */
        SiteStructure: {
            /** @constant */
            type: "sections";
            structure: (components["schemas"]["SiteSection"] | components["schemas"]["SiteSectionGroup"])[];
        } | {
            /** @constant */
            type: "siteSpaces";
            structure: components["schemas"]["SiteSpace"][];
        };
        /** @description Points at an item of a site's structure. */
        SiteStructureItemPointer: {
            /** @enum {string} */
            type: "site-space" | "site-section" | "site-section-group";
            /** @description Id of the site space, section or section group. */
            id: string;
        };
        /** @description Where an item of a site's structure goes; give `before` or `after`, or neither to put it last at its level. */
        SiteStructureItemMovePosition: {
            before?: components["schemas"]["SiteStructureItemPointer"];
            after?: components["schemas"]["SiteStructureItemPointer"];
        };
        /** @description An item of a site's structure, as moved. */
        SiteStructureItem: components["schemas"]["SiteSpace"] | components["schemas"]["SiteSection"] | components["schemas"]["SiteSectionGroup"];
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
        /** @description A page named in a list of changes, as the revision it is taken from has it. */
        ChangedRevisionPage: {
            /** @description Id of the page. */
            id: string;
            /**
             * @description Kind of entry, as in `RevisionPage`.
             * @enum {string}
             */
            type: "document" | "group" | "link" | "computed";
            /** @description Title of the page. */
            title: string;
            /** @description Path of the page; absent on link entries. */
            path?: string;
        };
        /** @description One field of a changed page or file, before and after the change; a side is absent when the field had no value there. */
        ChangeAttribute: {
            /** @description The value before the change. */
            before?: unknown;
            /** @description The value after the change. */
            after?: unknown;
        };
        /** @description A file named in a list of changes, as the revision it is taken from has it. */
        ChangedRevisionFile: {
            /** @description Id of the file. */
            id: string;
            /** @description Name of the file. */
            name: string;
            /** @description Media type of the file. */
            contentType: string;
            /**
             * Format: uri
             * @description Signed URL the file's bytes can be downloaded from.
             */
            downloadURL: string;
        };
        /**
         * @description One change from a revision to another, told apart by `type`: a page created, edited (`attributes` names
         *     the fields that changed, each with its value before and after; `document` gives the `documentId` of the
         *     page's content before and after, readable with `getDocumentById`), moved to another parent (`parent`;
         *     a side is absent for the top level) or deleted; a file created, edited or deleted.
         */
        RevisionSemanticChange: {
            /** @enum {string} */
            type: "page_created" | "page_deleted";
            page: components["schemas"]["ChangedRevisionPage"];
        } | {
            /** @constant */
            type: "page_edited";
            page: components["schemas"]["ChangedRevisionPage"];
            /** @description The fields that changed. `target` is where a link entry points. */
            attributes: {
                title?: components["schemas"]["ChangeAttribute"];
                description?: components["schemas"]["ChangeAttribute"];
                slug?: components["schemas"]["ChangeAttribute"];
                emoji?: components["schemas"]["ChangeAttribute"];
                document?: components["schemas"]["ChangeAttribute"];
                layout?: components["schemas"]["ChangeAttribute"];
                cover?: components["schemas"]["ChangeAttribute"];
                variables?: components["schemas"]["ChangeAttribute"];
                target?: components["schemas"]["ChangeAttribute"];
            };
        } | {
            /** @constant */
            type: "page_moved";
            page: components["schemas"]["ChangedRevisionPage"];
            /** @description The page's parent before and after the move; a side is absent for the top level. */
            parent: {
                before?: components["schemas"]["ChangedRevisionPage"];
                after?: components["schemas"]["ChangedRevisionPage"];
            };
        } | {
            /** @enum {string} */
            type: "file_created" | "file_deleted";
            file: components["schemas"]["ChangedRevisionFile"];
        } | {
            /** @constant */
            type: "file_edited";
            file: components["schemas"]["ChangedRevisionFile"];
            /** @description The fields that changed; `downloadURL` when the bytes did. */
            attributes: {
                name?: components["schemas"]["ChangeAttribute"];
                contentType?: components["schemas"]["ChangeAttribute"];
                size?: components["schemas"]["ChangeAttribute"];
                dimensions?: components["schemas"]["ChangeAttribute"];
                downloadURL?: components["schemas"]["ChangeAttribute"];
            };
        };
        /** @description What changed from one revision to another, pages first, then files. */
        RevisionSemanticChanges: {
            /** @description The changes, at most `limit` of them. */
            changes: components["schemas"]["RevisionSemanticChange"][];
            /** @description How many further changes were left out because of `limit`; absent when none were. */
            more?: number;
            /** @description For a merge revision, the change request whose merge made it. */
            mergedFrom?: components["schemas"]["ChangeRequest"];
        };
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
        /**
         * @description One person's contributions of one kind to a change request: `edit` (creating it, revisions of its content)
         *     or `comment` (comments on it and replies to them).
         */
        ChangeRequestContributor: {
            /**
             * @description The kind of contribution counted.
             * @enum {string}
             */
            readonly actionType: "edit" | "comment";
            /** @description How many contributions of this kind the person made. */
            readonly count: number;
            /**
             * Format: date-time
             * @description When the person made the last of them.
             */
            readonly updatedAt: string;
            user: components["schemas"]["User"];
        };
        /** @description One page of the contributors of a change request. */
        ChangeRequestContributorList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["ChangeRequestContributor"][];
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
            /**
             * @description Id of the page's content as a rich document in this revision (`getDocumentById`); on a document or
             *     computed page read on its own.
             */
            readonly documentId?: string;
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
         * @description A block of content defined once in a revision and inserted in any number of its pages. A page inserts it
         *     with a paragraph of its own holding the include tag `{% include "/reusable-contents/<id>" %}`, which a page
         *     read with `format` `document` answers as a `reusable-content` block (`data.ref.reusableContent` is the id).
         */
        RevisionReusableContent: {
            /** @description Opaque identifier of the reusable content, the same in every revision of the space. */
            id: string;
            /** @description Title of the reusable content. */
            title: string;
            /**
             * @description Id of the document holding the body of the reusable content in this revision (`getDocumentById`);
             *     absent when the reusable content is empty.
             */
            document?: string;
            /**
             * @description The body of the reusable content as Markdown, on the reads of one reusable content (an addition to the
             *     public API's shape, which names the document only); absent in the lists of a revision.
             */
            markdown?: string;
            /** @description Where the reusable content lives in the synchronized Git repository (`.gitbook/includes/`); absent when not synchronized or when `metadata` is false. */
            git?: {
                /** @description Git object id of the blob. */
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
            /** @description Blocks of content that pages of the revision insert by reference, in the order they were made (without their Markdown). */
            readonly reusableContents: components["schemas"]["RevisionReusableContent"][];
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
         *     update a page, delete a page, insert files, or insert, update or delete a reusable content.
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
        } | {
            /** @constant */
            operation: "insert_reusable_content";
            /** @description Title of the new reusable content. */
            title: string;
            /**
             * @description Body of the new reusable content, as a page's content is given. Pages insert it with a paragraph of
             *     its own holding `{% include "/reusable-contents/<id>" %}`, once it has its id (in a later batch).
             */
            document: components["schemas"]["PageDocumentInput"];
            /** @description A label of the caller's choosing, unique in the batch, repeated in the answer next to the new reusable content's id and usable as `reusableContent` by later changes of the batch. */
            ref?: string;
        } | {
            /** @constant */
            operation: "update_reusable_content";
            /** @description Id of the reusable content to change (or the `ref` of one inserted earlier in the batch). At least one other field must be given. */
            reusableContent: string;
            /** @description New title. */
            title?: string;
            /** @description New body, replacing the whole body; every page that inserts the reusable content shows it. */
            document?: components["schemas"]["PageDocumentInput"];
        } | {
            /** @constant */
            operation: "delete_reusable_content";
            /** @description Id of the reusable content to delete. Pages that insert it keep their include tag, which then shows nothing. */
            reusableContent: string;
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
            /** @description One entry per reusable content change of the batch, in the order of the request; absent when the batch made none. */
            readonly reusableContents?: {
                /**
                 * @description What happened to the reusable content.
                 * @enum {string}
                 */
                object: "created_reusable_content" | "updated_reusable_content" | "deleted_reusable_content";
                /** @description Id of the reusable content; for an inserted one, the id it was given. */
                reusableContent: string;
                /** @description The `ref` the change carried, if any. */
                ref?: string;
            }[];
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
         *     ways appears once per `kind`. A reusable content that conflicts is listed the same way, with its id as
         *     `page`, an empty `path` and `reusableContent` true.
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
            /** @description True when the conflict is on a reusable content (named by `page`) rather than on a page; absent otherwise. */
            readonly reusableContent?: boolean;
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
        /**
         * @description What content is computed from, in the public API's form: a `type`, the `dependencies` it reads and the
         *     `props` that choose what to compute. Quire computes `builtin:openapi` (the reference of one of the
         *     organization's OpenAPI specifications, `dependencies.spec.ref = {kind: openapi, spec: <slug>}`, as the
         *     `openapi-reference` template makes it); other types (`builtin:translation`, `integration:<name>:<source>`)
         *     are accepted in this form and answered 422, since a self-hosted Quire has neither translations nor
         *     integrations that compute content.
         */
        ComputedContentSource: {
            /** @description Kind of source, such as `builtin:openapi`. */
            type: string;
            /** @description What to compute from the source (for `builtin:openapi` documents, `doc` and `page`). */
            props?: Record<string, never>;
            /** @description The content the computation reads, by name (for `builtin:openapi`, `spec`). */
            dependencies?: Record<string, never>;
        };
        /**
         * @description The content a computed source produces: its pages (each with its content as `markdown`), files and
         *     reusable contents, as a revision would hold them below the computed page.
         */
        ComputedRevision: {
            /** @description The computed pages, in order, each a document page with its `markdown`. */
            pages: components["schemas"]["RevisionPage"][];
            /** @description The computed files (none for `builtin:openapi`). */
            files: components["schemas"]["RevisionFile"][];
            /** @description The computed reusable contents (none for `builtin:openapi`). */
            reusableContents: components["schemas"]["RevisionReusableContent"][];
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
             * @description `visitor-auth`: the site needs a JWT from its visitor-authentication backend. `site-redirect`: the
             *     address's path is the source of one of the site's redirects (createSiteRedirect), which comes before
             *     what the path would show. `moved-page`: no page is at this path now, but a page was in one of the
             *     space's last 20 revisions and is at another path now. Readers answer both of these with a permanent
             *     redirect (308).
             * @enum {string}
             */
            readonly reason: "visitor-auth" | "site-redirect" | "moved-page";
            /**
             * @description `external`: the redirect leaves Quire (the organization's own backend); `content`: another address of the same published site.
             * @enum {string}
             */
            readonly target: "external" | "content";
            /**
             * Format: uri
             * @description The backend's address with `?location=<the requested address, without secrets>`, or the published address to go to instead (without share key).
             */
            readonly redirect: string;
        };
        /**
         * @description How a link to a web page shows when embedded in content: its title, the site it belongs to and the site's
         *     icon, read from the page's HTML (`og:title`, else `<title>`; `og:site_name`, else the host name; the first
         *     `<link rel="icon">`). Quire answers only the `link` form: it never relays a page's own HTML.
         */
        Embed: {
            /**
             * @description `link`: shown as a link card. (The public API also has `rich` and `integration`, which Quire does not produce.)
             * @enum {string}
             */
            readonly type: "link";
            /** @description Title of the page; the URL itself when the page has none or could not be read as HTML. */
            readonly title: string;
            /** @description Name of the site the page belongs to. */
            readonly site: string;
            /**
             * Format: uri
             * @description Absolute http(s) address of the site's icon, when the page names one.
             */
            readonly icon?: string;
        };
        /**
         * @description What an app address points at: a collection, or a space with, when the address names them, one of its
         *     change requests and a page (answered without its content).
         */
        ContentAtUrl: {
            collection: components["schemas"]["Collection"];
        } | {
            space: components["schemas"]["Space"];
            /** @description The change request the address names; absent for the space's main content. */
            changeRequest?: components["schemas"]["ChangeRequest"];
            /** @description The page the address names (a document or group page), in the change request's content when one is named. */
            page?: components["schemas"]["RevisionPage"];
        };
        /**
         * @description A user's role on a space or a collection. Grants inherit down the tree: a grant on a collection applies to
         *     its sub-collections and spaces; a user's role on content is the highest of their organization role (through
         *     default levels) and the roles granted to them and to their teams on the content and its collections.
         */
        UserContentPermission: {
            permission: components["schemas"]["MemberRole"];
            user: components["schemas"]["User"];
        };
        /** @description One page of users with their role on a space or collection. */
        UserContentPermissionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["UserContentPermission"][];
        };
        /** @description The role granted to a team on a space or a collection. */
        TeamContentPermission: {
            permission: components["schemas"]["MemberRole"];
            team: components["schemas"]["Team"];
        };
        /** @description One page of teams with the role granted to them on a space or collection. */
        TeamContentPermissionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["TeamContentPermission"][];
        };
        /**
         * @description What a visitor did on a published site.
         * @enum {string}
         */
        SiteInsightsEventType: "page_view" | "search_open" | "search_type_query" | "search_open_result" | "page_post_feedback" | "page_post_feedback_comment" | "ask_question" | "ask_view" | "ask_rate_response" | "link_click" | "api_client_open" | "api_client_request" | "ad_click" | "ad_display" | "trademark_click";
        /**
         * @description The visitor and the session an event belongs to, in the public API's form. Quire keeps only what its
         *     aggregates need: a keyed hash of `visitorId` and of `sessionId` (to count visitors and sessions), the kind
         *     of device, browser and operating system and the crawler read from `userAgent` (not the string itself),
         *     `language`, and `referrer` without its query and fragment. `cookies`, `ip`, `visitorAuthToken` and
         *     `visitorAuthClaims` are accepted so that existing clients work, and never stored.
         */
        SiteInsightsEventSession: {
            /** @description The client's identifier of the visitor (kept only as a keyed hash). */
            visitorId: string;
            /** @description The client's identifier of the visitor's session (kept only as a keyed hash). */
            sessionId: string;
            /** @description The visitor's cookies (accepted, never stored). */
            cookies: {
                [key: string]: string;
            };
            /** @description The visitor's IP address (accepted, never stored nor used). */
            ip?: string;
            /** @description The visitor's user agent, read into a device, browser, operating system and crawler. */
            userAgent: string;
            /** @description The visitor's language (a BCP 47 tag such as `en-GB`). */
            language: string | null;
            /** @description Where the visitor came from; null or empty when unknown. */
            referrer: string | "" | null;
            /**
             * @deprecated
             * @description The visitor's authentication token (accepted, never stored nor read).
             */
            visitorAuthToken?: string | null;
            /** @description The visitor's claims (accepted, never stored: claims identify people). */
            visitorAuthClaims?: Record<string, never>;
        };
        /** @description Where on the site an event happened. */
        SiteInsightsEventLocation: {
            /**
             * Format: uri
             * @description The address of the page; kept without its query and fragment (which may hold share keys or tokens).
             */
            url: string;
            /**
             * @description Whether the event happened on the site or in an embedded widget.
             * @default site
             * @enum {string}
             */
            displayContext: "site" | "embed";
            /** @description Id of the site section. */
            siteSection: string | null;
            /** @description Id of the site space. */
            siteSpace: string | null;
            /** @description Id of the share link the visitor came through (its id, never its key). */
            siteShareKey: string | null;
            /** @description Id of the space. */
            space: string | null;
            /** @description Id of the revision. */
            revision: string | null;
            /** @description Id of the page. */
            page: string | null;
        };
        /** @description Where a clicked link goes, as a content reference - `kind` and the field of that name (`url` for `url`, `reusableContent` for `reusable-content`), which is required (400 without it). */
        SiteInsightsLinkTarget: {
            /** @enum {string} */
            kind: "url" | "page" | "file" | "anchor" | "space" | "collection" | "user" | "reusable-content";
            url?: string;
            page?: string;
            file?: string;
            anchor?: string;
            space?: string;
            collection?: string;
            user?: string;
            reusableContent?: string;
        };
        /**
         * @description One thing a visitor did on a published site, in the public API's form: its `type`, the `session` and
         *     `location` every event has, and the fields of its type (`query` of searches and questions, `result` of an
         *     opened search result, `feedback` of page feedback, `rating` and `responseId` of a rated answer, `link` of a
         *     clicked link, `operation` of the API client, `placement` of a trademark click, `ad` of ad events). An event
         *     without a field its type needs (a `link_click` without `link`...) is a 400 naming it.
         */
        SiteInsightsEvent: {
            type: components["schemas"]["SiteInsightsEventType"];
            session: components["schemas"]["SiteInsightsEventSession"];
            location: components["schemas"]["SiteInsightsEventLocation"];
            /**
             * Format: date-time
             * @description When the event happened, within 5 minutes of the time the server receives it; now when absent.
             */
            timestamp?: string;
            /** @description The search query or question (search_type_query, search_open_result, ask_question, ask_rate_response). */
            query?: string;
            /** @description The search result opened (search_open_result). */
            result?: {
                spaceId: string;
                pageId: string;
            };
            /** @description The visitor's rating of the page, with a comment for page_post_feedback_comment. */
            feedback?: {
                /** @enum {string} */
                rating: "bad" | "ok" | "good";
                comment?: string;
            };
            /**
             * @description The visitor's rating of an answer (ask_rate_response).
             * @enum {integer}
             */
            rating?: 1 | -1;
            /** @description The answer rated (ask_rate_response). */
            responseId?: string;
            /** @description The link clicked (link_click). */
            link?: {
                target: components["schemas"]["SiteInsightsLinkTarget"];
                /** @enum {string} */
                position: "announcement" | "header" | "footer" | "sidebar" | "content";
            };
            /** @description The API operation opened or called in the API client (api_client_open, api_client_request). */
            operation?: {
                path: string;
                method: string;
            };
            /**
             * @description Where the trademark was clicked (trademark_click).
             * @enum {string}
             */
            placement?: "sidebar" | "ad" | "footer" | "pdf";
            /** @description The ad shown or clicked (ad_display, ad_click). */
            ad?: {
                domain: string;
                zoneId: string;
                /** @enum {string} */
                placement: "aside";
            };
        };
        /**
         * @description A column of a site's events, in the public API's names. Measures: `eventsCount`, `sessionsCount`,
         *     `visitorsCount`, `pageFeedbackRating` (counts of each rating) and `askResponseRating` (counts of each
         *     rating of answers). Every other column is a property of events, to group, filter and select by.
         *     `visitorClaim`, `visitorClaimProperty`, `visitorGeoCountry` and `visitorGeoPoint` answer 400: Quire keeps
         *     neither visitors' claims nor their addresses, so it cannot place or segment them.
         * @enum {string}
         */
        SiteInsightsColumnName: "datetime" | "url" | "eventType" | "eventsCount" | "sessionsCount" | "visitorsCount" | "siteSection" | "siteSpace" | "siteShareKey" | "displayContext" | "page" | "visitorGeoCountry" | "visitorGeoPoint" | "visitorDevice" | "visitorBrowser" | "visitorOS" | "visitorBot" | "visitorLanguage" | "eventLinkTargetValue" | "eventLinkTargetKind" | "eventLinkTargetDomain" | "eventLinkPosition" | "eventAPIOperationPath" | "eventAPIOperationMethod" | "eventSearchQuery" | "eventPageFeedbackRating" | "eventPageFeedbackComment" | "eventAskResponseRating" | "pageFeedbackRating" | "askResponseRating" | "referrer" | "referrerDomain" | "utmSource" | "utmMedium" | "utmCampaign" | "utmTerm" | "utmContent" | "visitorClaimProperty" | "visitorClaim" | "eventAdDomain" | "eventAdPlacement" | "eventTrademarkPlacement";
        /**
         * @description A column to select, group or order by. `datetime` takes an `interval` (`hour`, `day` (the default), `week`
         *     starting on Monday, `month`; in UTC), and is then the start of each interval.
         */
        SiteInsightsColumn: {
            column: components["schemas"]["SiteInsightsColumnName"];
            /**
             * @description The length of the intervals of `datetime`.
             * @enum {string}
             */
            interval?: "hour" | "day" | "week" | "month";
            /** @description The precision of `visitorGeoPoint` (not served). */
            precision?: number;
            /** @description The claim of `visitorClaim` (not served). */
            claim?: string;
        };
        /**
         * @description Keeps the events (or, for a measure, the groups) whose column is `in` the values (the default), `notIn`
         *     them, or compares with the first value (`greaterThan`, `greaterThanOrEqual`, `lessThan`,
         *     `lessThanOrEqual`: for `datetime` and measures only). Values are of the column's kind: date-times, URLs,
         *     numbers, enum values, ids or null; for `page`, `{page, space}` objects or null.
         */
        SiteInsightsFilter: {
            column: components["schemas"]["SiteInsightsColumnName"];
            /** @description The claim of `visitorClaim` (not served). */
            claim?: string;
            /**
             * @default in
             * @enum {string}
             */
            operator: "in" | "notIn" | "greaterThan" | "greaterThanOrEqual" | "lessThan" | "lessThanOrEqual";
            values: (string | number | Record<string, never> | null)[];
        };
        /**
         * @description The time the events are read from: a preset ending now (`last24Hours`, `last7Days`, `last30Days`,
         *     `last3Months`, `lastYear`), or `{from, to}`, at most 366 days apart. Events are kept 366 days.
         */
        SiteInsightsRange: ("lastYear" | "last3Months" | "last30Days" | "last7Days" | "last24Hours") | {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
        };
        /**
         * @description A question over a site's events: of the events in `range` that pass `where`, grouped by `groupBy`, the
         *     columns `select` names (grouped columns and measures; by default the grouped columns and `eventsCount`),
         *     in `order`, at most `limit` rows. Selecting a property of events not grouped by is a 400. Grouping by a
         *     property that only some events have (a search query, a link, a feedback) keeps the events that have it.
         */
        SiteInsightsAggregation: {
            select?: components["schemas"]["SiteInsightsColumn"][];
            where?: components["schemas"]["SiteInsightsFilter"][];
            groupBy?: components["schemas"]["SiteInsightsColumn"][];
            order?: {
                by: components["schemas"]["SiteInsightsColumn"];
                /** @enum {string} */
                direction: "asc" | "desc";
            };
            range: components["schemas"]["SiteInsightsRange"];
            /** @default 1000 */
            limit: number;
        };
        /**
         * @description The answer, by column: each selected column with its values, one per row, rows in the same order in every
         *     column.
         */
        SiteInsightsAggregationResult: {
            columns: {
                column: components["schemas"]["SiteInsightsColumnName"];
                values: (string | number | Record<string, never> | null)[];
            }[];
        };
        /** @description A user's role on a docs site, and what gives it to them. */
        UserSitePermission: {
            permission: components["schemas"]["MemberRoleOrGuest"];
            user: components["schemas"]["User"];
            /** @description What gives the user this role; the organization unless one of the site's spaces gives a higher one. */
            origin: {
                /** @constant */
                type: "space";
                /** @description Id of the space. */
                space: string;
            } | {
                /** @constant */
                type: "organization";
                /** @description Id of the organization. */
                organization: string;
            };
        };
        /** @description One page of users with their role on a site. */
        UserSitePermissionList: {
            next?: components["schemas"]["ListNext"];
            /** @description Total number of items in the list. */
            count?: number;
            items: components["schemas"]["UserSitePermission"][];
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
        /** @description The request is well-formed, but carrying it out would go past a limit on the work one request may cause; the message names the limit and what to ask for instead. */
        UnprocessableContent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 422,
                 *         "message": "The PDF would hold more than 1,000,000 characters of markdown, the limit of one PDF; ask for part of the content with query.page (and query.only for one page)"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The server gave up on the work within its time limit; the message says which limit. */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": 503,
                 *         "message": "The PDF took longer than 120 seconds to render"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
        listPage: string;
        /** @description Largest number of items to return on this page (default 50). */
        listLimit: number;
        /** @description Id of a session of the caller. */
        sessionId: string;
        /** @description Id of the collection. */
        collectionId: string;
        /** @description An e-mail domain, such as `example.com` (compared without regard to case). */
        emailDomain: string;
        /**
         * @description Unique name of the integration: letters, digits, `-`, `_` and `.`, but not `.` or `..` alone, which clients
         *     that normalise paths (browsers, `new URL`) would turn into another address.
         */
        integrationName: string;
        /** @description Id of the organization. */
        organizationId: string;
        /** @description Id of the conversation issues cluster. */
        clusterId: string;
        /** @description Id of the conversation issue. */
        issueId: string;
        /** @description Id of the conversation. */
        conversationId: string;
        /**
         * @description The secret of the invitation: the last segment of its join address (`<public URL>/join/<secret>`), which the
         *     invitation's mail or its creating answer carries. Not the invite's `id`, which admins see in lists: joining
         *     needs what was given to the person invited.
         */
        inviteSecret: string;
        /** @description Id of the invite (as `createOrganizationInvite`, `listOrganizationInviteLinks` or `inviteUsersToOrganization` answer it). */
        inviteId: string;
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
        /**
         * @deprecated
         * @description Accepted as the public API has it, and ignored: the public API masks the settings a site's plan does not
         *     include unless this is true, and a self-hosted Quire sells no plans (every site has every feature), so the
         *     settings are answered whole either way.
         */
        customizationUnmasked: boolean;
        /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
        shareKey: string;
        /** @description Id of the site section group. */
        siteSectionGroupId: string;
        /** @description Id of the site section. */
        siteSectionId: string;
        /** @description Id of the site redirect. */
        siteRedirectId: string;
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
        /** @description Most changes to answer; how many more there are is given as `more`. */
        changesLimit: number;
        /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
        documentFormat: "document" | "markdown";
        /** @description Id of the comment. */
        commentId: string;
        /** @description Id of the comment reply. */
        commentReplyId: string;
        /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
        contentMetadata: boolean;
        /** @description When false, computed pages are answered as their source definition instead of their computed content. */
        contentComputed: boolean;
        /** @description Id of the file. */
        fileId: string;
        /** @description Id of the page. */
        pageId: string;
        /**
         * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
         *     only expressions whose inputs are deterministic, `false` none.
         */
        documentEvaluated: boolean | "deterministic-only";
        /**
         * @description Path of the page within the content, its ancestors' slugs and its own joined by `/` (the `path` of the
         *     page), for example `guide/install`. The slashes may be sent as they are or percent-encoded (`%2F`).
         */
        pagePath: string;
        /** @description Id of a reusable content of the revision read (the same in every revision of the space). */
        reusableContentId: string;
        /** @description Id of the review. */
        reviewId: string;
        /**
         * @description Version of the document schema to answer in. Quire has one version of its document nodes, so `current`
         *     and `next` answer the same document; the parameter is accepted for compatibility with clients of the
         *     public API.
         */
        documentSchema: "current" | "next";
        /** @description Id of a document of the space, as the `documentId` of a page read on its own gives it. */
        documentId: string;
        /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
        revisionId: string;
        /** @description The absolute http(s) address of the page to embed. */
        embedUrl: string;
        /** @description Only the users whose effective role is this one. */
        aggregateRole: components["schemas"]["MemberRole"];
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
    acceptOrganizationInvite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    invite: components["schemas"]["InviteSecret"];
                    /** @description The person's name as others see it. */
                    displayName: string;
                    /** @description The password of the new account (the rules are checked by the server, which names the one that fails). */
                    password: string;
                };
            };
        };
        responses: {
            /** @description The account and its membership. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInviteAcceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    previewOrganizationInvite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    invite: components["schemas"]["InviteSecret"];
                };
            };
        };
        responses: {
            /** @description What the invitation offers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInvitePreview"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listSignInProviders: {
        parameters: {
            query?: {
                /** @description An address whose domain's SAML providers to list; only its domain is used. */
                email?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ways to sign in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignInProviders"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The account's email address (case does not matter). */
                    email: string;
                    password: string;
                    /** @description A code of the authenticator app (6 digits) or a recovery code. */
                    code?: string;
                };
            };
        };
        responses: {
            /** @description Signed in (`auth-session`, with the cookie), or a second factor is needed (`sign-in-challenge`). */
            200: {
                headers: {
                    /** @description The session cookie `quire_session`, only with an `auth-session`. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthSession"] | components["schemas"]["SignInChallenge"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            204: {
                headers: {
                    /** @description Clears the session cookie. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getCurrentSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthSession"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listUserSessions: {
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
            /** @description One page of sessions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteUserSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The other sessions are ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    deleteUserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of a session of the caller. */
                sessionId: components["parameters"]["sessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateUserPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currentPassword: string;
                    /** @description The new password (12 to 256 characters, not a common password). */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description The password is changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    startTotpEnrollment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secret to add to an authenticator app. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TotpEnrollment"];
                };
            };
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    disableTotp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A current code of the authenticator app, or a recovery code. */
                    code: string;
                };
            };
        };
        responses: {
            /** @description The second factor is off. */
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
    confirmTotpEnrollment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The current 6-digit code of the authenticator app. */
                    code: string;
                };
            };
        };
        responses: {
            /** @description The second factor is on; its recovery codes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TotpRecoveryCodes"];
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
    getOrganizationsForEmailDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An e-mail domain, such as `example.com` (compared without regard to case). */
                emailDomain: components["parameters"]["emailDomain"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's organizations that declare the domain. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        organizations: components["schemas"]["Organization"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
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
                /**
                 * @description Unique name of the integration: letters, digits, `-`, `_` and `.`, but not `.` or `..` alone, which clients
                 *     that normalise paths (browsers, `new URL`) would turn into another address.
                 */
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
                /**
                 * @description Unique name of the integration: letters, digits, `-`, `_` and `.`, but not `.` or `..` alone, which clients
                 *     that normalise paths (browsers, `new URL`) would turn into another address.
                 */
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
                /**
                 * @description Unique name of the integration: letters, digits, `-`, `_` and `.`, but not `.` or `..` alone, which clients
                 *     that normalise paths (browsers, `new URL`) would turn into another address.
                 */
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
                    /** @description The e-mail domains whose people the organization is for (replaces the list; `[]` clears it). */
                    emailDomains?: string[];
                    /**
                     * @description Whether invite links work: when false, no link invite can be created and none lets anyone join
                     *     (they are kept, and work again once this is true). E-mail invitations are not affected.
                     */
                    inviteLinks?: boolean;
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
    listPendingOrganizationInvites: {
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
            /** @description One page of waiting e-mail invitations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationEmailInviteList"];
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
    inviteUsersToOrganization: {
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
                    /** @description The addresses to invite, each alone or with its own role. */
                    emails: (string | {
                        /**
                         * Format: email
                         * @description The address.
                         */
                        email: string;
                        role: components["schemas"]["MemberRoleOrGuest"];
                    })[];
                    /** @description The role of the addresses given without one. */
                    role?: components["schemas"]["MemberRoleOrGuest"];
                    /** @description Whether the people join as SSO members of the organization (false by default). */
                    sso?: boolean;
                };
            };
        };
        responses: {
            /** @description The invitations made. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInvitesSent"];
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
    joinOrganizationWithInvite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /**
                 * @description The secret of the invitation: the last segment of its join address (`<public URL>/join/<secret>`), which the
                 *     invitation's mail or its creating answer carries. Not the invite's `id`, which admins see in lists: joining
                 *     needs what was given to the person invited.
                 */
                inviteSecret: components["parameters"]["inviteSecret"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller is a member now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
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
    joinOrganization: {
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
            /** @description The caller is a member. */
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
    listOrganizationInviteLinks: {
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
            /** @description One page of invite links. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInviteLinkList"];
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
    createOrganizationInvite: {
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
                "application/json": components["schemas"]["CreateOrganizationInvite"];
            };
        };
        responses: {
            /** @description The invite link, with its join address. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInviteLink"];
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
    getOrganizationInviteLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the invite (as `createOrganizationInvite`, `listOrganizationInviteLinks` or `inviteUsersToOrganization` answer it). */
                inviteId: components["parameters"]["inviteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invite link. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInviteLink"];
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
    deleteOrganizationInviteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the invite (as `createOrganizationInvite`, `listOrganizationInviteLinks` or `inviteUsersToOrganization` answer it). */
                inviteId: components["parameters"]["inviteId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description There was no such invite. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The invite was revoked. */
            205: {
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
    updateOrganizationInviteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the invite (as `createOrganizationInvite`, `listOrganizationInviteLinks` or `inviteUsersToOrganization` answer it). */
                inviteId: components["parameters"]["inviteId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    role?: components["schemas"]["MemberRoleOrGuest"];
                    level?: components["schemas"]["MemberRole"];
                    /**
                     * Format: date-time
                     * @description When the link stops working; in the future, at most a year ahead.
                     */
                    expiresAt?: string;
                    /** @description How many people may join with the link in all; null for no limit. */
                    maxUses?: number | null;
                };
            };
        };
        responses: {
            /** @description The invite link after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationInviteLink"];
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
                    ssoURL: string;
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
    searchOrganizationContent: {
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
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the matching spaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchSpaceResultList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
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
                /** @description Id of a space; only the sites that publish it. None for a space the caller cannot see. */
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
            query?: {
                /**
                 * @deprecated
                 * @description Accepted as the public API has it, and ignored: the public API masks the settings a site's plan does not
                 *     include unless this is true, and a self-hosted Quire sells no plans (every site has every feature), so the
                 *     settings are answered whole either way.
                 */
                unmasked?: components["parameters"]["customizationUnmasked"];
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
    uploadSiteCustomizationImage: {
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
                "application/json": components["schemas"]["SiteCustomizationImageUpload"];
            };
        };
        responses: {
            /** @description The image, stored. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomizationImage"];
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
    getSiteCustomizationImageById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the image. */
                siteImageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteCustomizationImage"];
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
    previewSiteCustomizationById: {
        parameters: {
            query?: {
                /** @description A site space of the site whose customization (the body under its overrides) is answered instead of the site's. */
                siteSpace?: string;
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
        requestBody: {
            content: {
                "application/json": components["schemas"]["SiteCustomization"];
            };
        };
        responses: {
            /** @description The customization the site (or the site space) would have, defaults filled in; nothing stored. */
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
    getSitePublishingAuthById: {
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
                    "application/json": components["schemas"]["SitePublishingAuth"];
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
    updateSitePublishingAuthById: {
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
                "application/json": components["schemas"]["SitePublishingAuthUpdate"];
            };
        };
        responses: {
            /** @description The visitor authentication as stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SitePublishingAuth"];
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
    regenerateSitePublishingAuthById: {
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
            /** @description The visitor authentication with its new key. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SitePublishingAuth"];
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
    getSitePublishingPreviewById: {
        parameters: {
            query?: {
                /** @description Id of the site space to preview; omitted, the default site space of the default section. */
                siteSpace?: string;
                /** @description Rison object of the visitor's claims to preview the site for (booleans, numbers and strings). */
                claims?: string;
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
            /** @description The preview address. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description The address of the site space on the site, with the claims given.
                         */
                        url: string;
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
    searchSiteContent: {
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
        requestBody: {
            content: {
                "application/json": {
                    /** @description The words to find. */
                    query: string;
                    scope?: components["schemas"]["SiteSearchScope"];
                    /**
                     * @deprecated
                     * @description The earlier form of `scope.mode`.
                     * @enum {string}
                     */
                    mode?: "specific" | "current" | "all";
                    /**
                     * @deprecated
                     * @description The earlier form of `scope` with mode specific.
                     */
                    siteSpaceIds?: string[];
                    /**
                     * @deprecated
                     * @description With mode current, the site space always searched.
                     */
                    siteSpaceId?: string;
                };
            };
        };
        responses: {
            /** @description One page of results. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteSearchResultList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
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
    moveSiteSectionGroup: {
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
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Where to put the site section group; give `before` or `after`. */
                    position?: {
                        before?: components["schemas"]["SiteSectionGroupPointer"];
                        after?: components["schemas"]["SiteSectionGroupPointer"];
                    };
                };
            };
        };
        responses: {
            /** @description The moved site section group. */
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
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
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
            409: components["responses"]["Conflict"];
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
    moveSiteSection: {
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
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Where to put the site section; give `before` or `after`. */
                    position?: {
                        before?: components["schemas"]["SiteSectionPointer"];
                        after?: components["schemas"]["SiteSectionPointer"];
                    };
                };
            };
        };
        responses: {
            /** @description The moved site section. */
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
    listSiteRedirects: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Text the source path of a redirect must contain. */
                search?: string;
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
            /** @description One page of redirects. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteRedirectList"];
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
    createSiteRedirect: {
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
                    source: components["schemas"]["SiteRedirectSourcePath"];
                    destination: components["schemas"]["SiteRedirectDestination"];
                };
            };
        };
        responses: {
            /** @description The redirect was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteRedirect"];
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
    deleteSiteRedirectById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site redirect. */
                siteRedirectId: components["parameters"]["siteRedirectId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The redirect did not exist. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The redirect was deleted. */
            205: {
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
    updateSiteRedirectById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the organization. */
                organizationId: components["parameters"]["organizationId"];
                /** @description Id of the site. */
                siteId: components["parameters"]["siteId"];
                /** @description Id of the site redirect. */
                siteRedirectId: components["parameters"]["siteRedirectId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    source?: components["schemas"]["SiteRedirectSourcePath"];
                    destination?: components["schemas"]["SiteRedirectDestination"];
                };
            };
        };
        responses: {
            /** @description The updated redirect. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteRedirect"];
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
    getSiteRedirectBySource: {
        parameters: {
            query: {
                /** @description Secret key of a share link; resolves the published URLs of share-link sites. */
                shareKey?: components["parameters"]["shareKey"];
                /** @description The source path of the redirect. */
                source: components["schemas"]["SiteRedirectSourcePath"];
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
            /** @description The redirect and the address it sends visitors to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        redirect: components["schemas"]["SiteRedirect"];
                        /**
                         * Format: uri
                         * @description The address of the destination in the published site.
                         */
                        target: string;
                    };
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
            query?: {
                /**
                 * @deprecated
                 * @description Accepted as the public API has it, and ignored: the public API masks the settings a site's plan does not
                 *     include unless this is true, and a self-hosted Quire sells no plans (every site has every feature), so the
                 *     settings are answered whole either way.
                 */
                unmasked?: components["parameters"]["customizationUnmasked"];
            };
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
    getSiteStructure: {
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
            /** @description The structure of the site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteStructure"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    sortSiteStructure: {
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
                    item: components["schemas"]["SiteStructureItemPointer"];
                    position: components["schemas"]["SiteStructureItemMovePosition"];
                };
            };
        };
        responses: {
            /** @description The moved item. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteStructureItem"];
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
    getChangeRequestChanges: {
        parameters: {
            query?: {
                /** @description Most changes to answer; how many more there are is given as `more`. */
                limit?: components["parameters"]["changesLimit"];
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
            /** @description The changes of the change request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionSemanticChanges"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listCommentersInChangeRequest: {
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
            /** @description One page of the people who commented on the change request. */
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
    listCommentsInChangeRequest: {
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
                /** @description Keep only the comments attached to this page (id of a page of the change request's content). */
                targetPage?: string;
                /** @description Keep only the comments posted by one of these users. Repeat the key for each user id (`authors=a&authors=b`). */
                authors?: string[];
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
            /** @description One page of the comments of the change request. */
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
    postCommentInChangeRequest: {
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
                    /** @description Id (key) of the block of `page` to attach the comment to. */
                    node?: string;
                    /** @description Id of the page of the change request's content to attach the comment to. */
                    page?: string;
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
    getCommentInChangeRequest: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    updateCommentInChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    deleteCommentInChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change request has no such comment; nothing was deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The comment and its replies are deleted. */
            205: {
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
    listCommentRepliesInChangeRequest: {
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
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    postCommentReplyInChangeRequest: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    getCommentReplyInChangeRequest: {
        parameters: {
            query?: {
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    updateCommentReplyInChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
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
    deleteCommentReplyInChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of the change request, or its number within the space. */
                changeRequestId: components["parameters"]["changeRequestId"];
                /** @description Id of the comment. */
                commentId: components["parameters"]["commentId"];
                /** @description Id of the comment reply. */
                commentReplyId: components["parameters"]["commentReplyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The comment has no such reply; nothing was deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The reply is deleted. */
            205: {
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
    getContributorsByChangeRequestId: {
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
            /** @description One page of the contributions to the change request, by person and kind. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestContributorList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
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
                    /**
                     * @description Id of the revision the changes were made against. When the change request's current revision is
                     *     another one, nothing is changed and the answer is 412. Omitted, the batch is unconditional.
                     */
                    revision?: string;
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
            /** @description `revision` was given and the change request has another current revision: it was edited meanwhile. */
            412: components["responses"]["PreconditionFailed"];
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
    getPageInChangeRequestByPath: {
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
                /**
                 * @description Path of the page within the content, its ancestors' slugs and its own joined by `/` (the `path` of the
                 *     page), for example `guide/install`. The slashes may be sent as they are or percent-encoded (`%2F`).
                 */
                pagePath: components["parameters"]["pagePath"];
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
    getReusableContentInChangeRequestById: {
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
                /** @description Id of a reusable content of the revision read (the same in every revision of the space). */
                reusableContentId: components["parameters"]["reusableContentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reusable content. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionReusableContent"];
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
                /**
                 * @description `change-request`: only the broken links the change request introduces (broken in its content, not in
                 *     the main content it last took in), the ones `stats.broken.changeRequest` counts. `space`: every broken
                 *     link of the change request's content, introduced by it or already broken in the space. Either keeps
                 *     broken links only (with `status` `ok` or `in-app`, the list is empty); `stats` counts them all.
                 */
                brokenContext?: "change-request" | "space";
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
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
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
                    /** @description New short title of the change request; an empty string clears it. */
                    subject?: string;
                    /** @description New explanation of the change request, as a rich document, replacing the previous one. */
                    description?: components["schemas"]["JSONDocument"];
                };
            };
        };
        responses: {
            /** @description The review requests sent. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The review requests of the users listed, in the order they were listed. */
                        users: components["schemas"]["ChangeRequestRequestedReviewer"][];
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
                /** @description Form of rich content in the answer, `markdown` text or a `document` tree of blocks. */
                format?: components["parameters"]["documentFormat"];
                /**
                 * @description `true`: only the reviews given on an earlier revision of the change request than its current one;
                 *     `false`: only those given on the current revision. All reviews when omitted.
                 */
                outdated?: boolean;
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
    getComputedDocument: {
        parameters: {
            query?: {
                /**
                 * @description Version of the document schema to answer in. Quire has one version of its document nodes, so `current`
                 *     and `next` answer the same document; the parameter is accepted for compatibility with clients of the
                 *     public API.
                 */
                schema?: components["parameters"]["documentSchema"];
            };
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
                    source: components["schemas"]["ComputedContentSource"];
                    /** @description Seed of the ids the computation makes (accepted; computed documents hold none). */
                    seed: string;
                };
            };
        };
        responses: {
            /** @description The computed document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getComputedRevision: {
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
                    source: components["schemas"]["ComputedContentSource"];
                    /** @description Seed of the ids of the computed pages. */
                    seed: string;
                };
            };
        };
        responses: {
            /** @description The computed pages, files and reusable contents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComputedRevision"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
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
    getPageByPath: {
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
                /**
                 * @description Path of the page within the content, its ancestors' slugs and its own joined by `/` (the `path` of the
                 *     page), for example `guide/install`. The slashes may be sent as they are or percent-encoded (`%2F`).
                 */
                pagePath: components["parameters"]["pagePath"];
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
    getReusableContentById: {
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
                /** @description Id of a reusable content of the revision read (the same in every revision of the space). */
                reusableContentId: components["parameters"]["reusableContentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reusable content. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionReusableContent"];
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
    getDocumentById: {
        parameters: {
            query?: {
                /**
                 * @description Version of the document schema to answer in. Quire has one version of its document nodes, so `current`
                 *     and `next` answer the same document; the parameter is accepted for compatibility with clients of the
                 *     public API.
                 */
                schema?: components["parameters"]["documentSchema"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of a document of the space, as the `documentId` of a page read on its own gives it. */
                documentId: components["parameters"]["documentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
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
    getRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revision. */
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
    getRevisionSemanticChanges: {
        parameters: {
            query?: {
                /** @description When false, mutable Git metadata (`git` of revisions, pages and files) is left out of the answer. */
                metadata?: components["parameters"]["contentMetadata"];
                /** @description When false, computed pages are answered as their source definition instead of their computed content. */
                computed?: components["parameters"]["contentComputed"];
                /** @description Most changes to answer; how many more there are is given as `more`. */
                limit?: components["parameters"]["changesLimit"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changes of the revision. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionSemanticChanges"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listFilesInRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the files of the revision. */
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
    getFileInRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
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
    getPageInRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
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
    getPageDocumentInRevisionById: {
        parameters: {
            query?: {
                /**
                 * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
                 *     only expressions whose inputs are deterministic, `false` none.
                 */
                evaluated?: components["parameters"]["documentEvaluated"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
                /** @description Id of the page. */
                pageId: components["parameters"]["pageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document of the page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPagesInRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page tree of the revision. */
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
    getPageInRevisionByPath: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
                /**
                 * @description Path of the page within the content, its ancestors' slugs and its own joined by `/` (the `path` of the
                 *     page), for example `guide/install`. The slashes may be sent as they are or percent-encoded (`%2F`).
                 */
                pagePath: components["parameters"]["pagePath"];
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
    getReusableContentInRevisionById: {
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
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
                /** @description Id of a reusable content of the revision read (the same in every revision of the space). */
                reusableContentId: components["parameters"]["reusableContentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reusable content. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionReusableContent"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getReusableContentDocumentInRevisionById: {
        parameters: {
            query?: {
                /**
                 * @description Whether expressions in the content are evaluated: `true` evaluates the whole document, `deterministic-only`
                 *     only expressions whose inputs are deterministic, `false` none.
                 */
                evaluated?: components["parameters"]["documentEvaluated"];
            };
            header?: never;
            path: {
                /** @description Id of the space. */
                spaceId: components["parameters"]["spaceId"];
                /** @description Id of a revision of the space (the space's current one, an earlier one, or one of its change requests'). */
                revisionId: components["parameters"]["revisionId"];
                /** @description Id of a reusable content of the revision read (the same in every revision of the space). */
                reusableContentId: components["parameters"]["reusableContentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document of the reusable content. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
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
                /**
                 * @description What a `visitor-auth` site does with a JWT that does not verify (expired past the tolerance, signed with
                 *     another key, malformed): `true` answers the redirect to the site's visitor-authentication backend, as
                 *     for a visitor without one; `false` (the default) answers 401, so that a caller can tell a bad token from
                 *     none. A visitor without any JWT is redirected either way.
                 */
                redirectOnError?: boolean;
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
    resolvePublishedContentByUrl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The absolute http(s) address the reader opened, with its query string. */
                    url: string;
                    /**
                     * @description As the GET's `redirectOnError`.
                     * @default false
                     */
                    redirectOnError?: boolean;
                    /** @description Who the visitor is. */
                    visitor?: {
                        /** @description The JWT the site's visitor-authentication backend signed for this visitor (HS256, with `exp`). */
                        jwtToken?: string;
                        /** @description Claims the visitor states about themselves (`visitor.claims.unsigned.*` in conditions); names `__proto__`, `constructor` and `prototype` are ignored. */
                        unsignedClaims?: Record<string, never>;
                    };
                };
            };
        };
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
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getEmbedByUrl: {
        parameters: {
            query: {
                /** @description The absolute http(s) address of the page to embed. */
                url: components["parameters"]["embedUrl"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How the link shows. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Embed"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getContentByUrl: {
        parameters: {
            query: {
                /** @description An absolute address of this Quire's app, such as the `urls.app` of a space or a page. */
                url: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What the address points at. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContentAtUrl"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    getEmbedByUrlInSpace: {
        parameters: {
            query: {
                /** @description The absolute http(s) address of the page to embed. */
                url: components["parameters"]["embedUrl"];
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
            /** @description How the link shows. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Embed"];
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
    getSpacePDF: {
        parameters: {
            query?: {
                /** @description When true, the PDF holds only the page given by `page`, without its descendants. */
                only?: boolean;
                /** @description Id of the page of the space the PDF starts from (a page id, not a list cursor). */
                page?: string;
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
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
            default: components["responses"]["Unexpected"];
        };
    };
    getUserById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    updateUserById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the user. */
                userId: components["parameters"]["userId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name shown to other people. */
                    displayName?: string;
                    /**
                     * Format: uri
                     * @description URL of the user's picture.
                     */
                    photoURL?: string;
                };
            };
        };
        responses: {
            /** @description The user as updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
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
    removeUserFromSpace: {
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
            /** @description The user had no grant here; nothing changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The grant is removed. */
            205: {
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
    removeTeamFromSpace: {
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
            /** @description The team had no grant here; nothing changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The grant is removed. */
            205: {
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
    removeUserFromCollection: {
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
            /** @description The user had no grant here; nothing changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The grant is removed. */
            205: {
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
    removeTeamFromCollection: {
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
            /** @description The team had no grant here; nothing changed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The grant is removed. */
            205: {
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
    listUserPermissionsInSpace: {
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserContentPermissionList"];
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
    listTeamPermissionsInSpace: {
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamContentPermissionList"];
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
    listPermissionsAggregateInSpace: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only the users whose effective role is this one. */
                role?: components["parameters"]["aggregateRole"];
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserContentPermissionList"];
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
    listUserPermissionsInCollection: {
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserContentPermissionList"];
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
    listTeamPermissionsInCollection: {
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamContentPermissionList"];
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
    listPermissionsAggregateInCollection: {
        parameters: {
            query?: {
                /** @description Opaque cursor of the page of results to fetch, as given by `next.page` of the previous page. */
                page?: components["parameters"]["listPage"];
                /** @description Largest number of items to return on this page (default 50). */
                limit?: components["parameters"]["listLimit"];
                /** @description Only the users whose effective role is this one. */
                role?: components["parameters"]["aggregateRole"];
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserContentPermissionList"];
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
    trackEventsInSiteById: {
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
                    events: components["schemas"]["SiteInsightsEvent"][];
                };
            };
        };
        responses: {
            /** @description The events were recorded. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    aggregateSiteEvents: {
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
                "application/json": components["schemas"]["SiteInsightsAggregation"];
            };
        };
        responses: {
            /** @description The answer, column by column. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteInsightsAggregationResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Unexpected"];
        };
    };
    listPermissionsAggregateInSite: {
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
            /** @description One page of the list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserSitePermissionList"];
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
}
