/**
 * Generated from the server's /openapi.json by `npm run console:api-types`; do not edit.
 * The console's only view of the API: a route or field missing here cannot be called.
 */
export interface paths {
    "/api/v1/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The console's sign-in: a login session kept in an HttpOnly, SameSite=Strict cookie, accepted only from the console's own pages
         * @description The answer carries `sessionBinding`: the page keeps it in its web storage and sends it as `X-Hearth-Session-Binding` with every request. The cookie authenticates a request only with it: on plain http, pages on other ports of the same host can set the cookie, but not write to this origin's storage.
         *
         *     Public: no token needed.
         */
        post: operations["openBrowserSession"];
        /**
         * The console's sign-out: revokes the session of the cookie and clears it
         * @description Any valid token.
         */
        delete: operations["closeBrowserSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account; the first one is the administrator. Answers the master token once
         * @description Public: no token needed.
         */
        post: operations["register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/registration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether this server accepts new accounts now: lets a sign-in page decide whether to offer "Create account"
         * @description Public: no token needed.
         */
        get: operations["getRegistrationStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with email and password; answers a session token that expires
         * @description Public: no token needed.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke the calling token (a login session, or any token but the master token)
         * @description Any valid token.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the account's password: the current one is required; every other login session ends
         * @description Owner only: the master token or a login session.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/password-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a new password with a one-time link made by `hearth reset-password` on the server; every login session ends
         * @description For an owner who forgot the password: the operator runs `hearth reset-password --email <address>` on the server, which prints a link to the console's /reset-password page, valid 30 minutes and once. A link never made answers 404; one used, replaced by a newer link or expired answers 409, with `details.reason` `used`, `superseded` or `expired`. A link ends too when the password or the email is changed after it was made (`superseded`); an account the administrator disabled answers 403 `ACCOUNT_DISABLED`, the link unspent.
         *
         *     Public: no token needed.
         */
        post: operations["resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the email the account signs in with; the password is required
         * @description Owner only: the master token or a login session.
         */
        post: operations["changeEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account the calling token belongs to
         * @description Requires scope: `identity`.
         */
        get: operations["getAuthMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account the calling token belongs to
         * @description Requires scope: `identity`.
         */
        get: operations["getUsersMe"];
        put?: never;
        post?: never;
        /**
         * Delete the account and everything in it, for good: the password and the email typed again are required
         * @description Irreversible. Erases every record of the account (memory, knowledge base, personas, skills, vault secrets and their keys, tokens and sessions, connections, webhooks, devices, chats, approvals, exports, the audit log…) and its export archives on disk; connected accounts are disconnected first, their grants revoked at the provider. Export the data first if it is wanted (POST /api/v1/export). The administrator's account cannot be deleted while other accounts remain (409). Every token of the account stops working at once.
         *
         *     Owner only: the master token or a login session.
         */
        delete: operations["deleteAccount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List every account
         * @description Administrator only: the administrator's master token or login session.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create an account (works whatever REGISTRATION says)
         * @description Administrator only: the administrator's master token or login session.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change an account's plan
         * @description Administrator only: the administrator's master token or login session.
         */
        put: operations["setUserPlan"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Disable an account, or enable it again
         * @description A disabled account cannot sign in (403 ACCOUNT_DISABLED once its password is right), and every one of its tokens and login sessions is refused at once with 403 ACCOUNT_DISABLED; none is revoked, so enabling it again gives back what it had. The administrator's own account cannot be disabled (409 CONFLICT). Setting the state it already has changes nothing.
         *
         *     Administrator only: the administrator's master token or login session.
         */
        put: operations["setUserStatus"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the owner's tokens (login sessions only with kind=session)
         * @description Owner only: the master token or a login session.
         */
        get: operations["listTokens"];
        put?: never;
        /**
         * Create a scoped API token; its secret is shown once
         * @description Owner only: the master token or a login session.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/master/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the master token; the old one stops working at once
         * @description With the master token no body is needed. From a login session (how an owner who lost the master token gets a new one), send the account password: `{ "password": "…" }`.
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["regenerateMasterToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a token (never its secret)
         * @description Owner only: the master token or a login session.
         */
        get: operations["getToken"];
        /**
         * Rename a token, change its scopes or expiry
         * @description Owner only: the master token or a login session.
         */
        put: operations["updateToken"];
        post?: never;
        /**
         * Revoke a token
         * @description Owner only: the master token or a login session.
         */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a token a new secret; the old secret stops working at once
         * @description Regenerating the master token from a login session needs the account password, as on /tokens/master/regenerate.
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["regenerateToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Security events, newest first
         * @description Owner only: the master token or a login session.
         */
        get: operations["listAuditLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The discovery document: what Hearth is, where its docs are, how to authenticate, every endpoint
         * @description Public: no token needed.
         */
        get: operations["getDiscovery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quick-start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Step-by-step start for an agent; `authenticated` tells whether the request carried a valid token
         * @description Public: no token needed.
         */
        get: operations["getQuickStart"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API as an OpenAPI 3.1 document
         * @description Public: no token needed.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/llms.txt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A plain-text guide for language-model clients
         * @description Public: no token needed.
         */
        get: operations["getLlmsTxt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health: 200 while this node serves and its database answers; 503 while it drains (shutting down) or when its database does not answer
         * @description Public: no token needed.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/scopes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every scope a token can hold and the routes it opens
         * @description Any valid token.
         */
        get: operations["listScopes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/me/capabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling token: its kind, scopes, rights and every endpoint it may call
         * @description Any valid token.
         */
        get: operations["getTokenCapabilities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/capabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Capabilities grouped by area, with each endpoint marked allowed or not for the calling token
         * @description Any valid token.
         */
        get: operations["getCapabilities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/gateway/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Call first: the persona, the user, memory, connected services and the endpoints this token may call; with task, what serves it; with maxTokens, within that budget
         * @description Requires scope: `read`.
         */
        get: operations["getGatewayContext"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's events as they happen (handshakes and app authorizations asked and decided, tokens, devices, connections, plan, failed sign-ins), as Server-Sent Events
         * @description Owner only: the master token or a login session.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A token's policy: for each action class, allow, ask or deny
         * @description Owner only: the master token or a login session.
         */
        get: operations["getTokenPolicy"];
        /**
         * Replace a token's policy (classes left out are allow); not for master or session tokens
         * @description Owner only: the master token or a login session.
         */
        put: operations["setTokenPolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Requests held for the owner by token policies, newest first; filter by status
         * @description Owner only: the master token or a login session.
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One approval: for the owner, with the exact held request, or for the token whose request it holds (which alone sees the answer once it ran)
         * @description Any valid token.
         */
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a pending request: it runs once, as the token that made it, and the approval answers how it ended
         * @description Owner only: the master token or a login session.
         */
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny a pending request: it never runs
         * @description Owner only: the master token or a login session.
         */
        post: operations["denyApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's handshakes, newest first
         * @description Owner only: the master token or a login session.
         */
        get: operations["listHandshakes"];
        put?: never;
        /**
         * Ask the owner for a token (agents without one); poll statusUrl for the answer
         * @description Public: no token needed.
         */
        post: operations["createHandshake"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A handshake's status: pending, approved or denied. Never the token, which the owner passes on
         * @description Public: no token needed.
         */
        get: operations["getHandshakeStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes/{id}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Collect the token of an approved handshake with its claimSecret, once (agents without a token)
         * @description Public: no token needed.
         */
        post: operations["claimHandshakeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a pending handshake; answers the agent's new token once, to pass on out of band
         * @description Owner only: the master token or a login session.
         */
        post: operations["approveHandshake"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny a pending handshake
         * @description Owner only: the master token or a login session.
         */
        post: operations["denyHandshake"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/handshakes/{id}": {
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
         * Revoke a handshake; the token it produced stops working at once. It then reads denied
         * @description Owner only: the master token or a login session.
         */
        delete: operations["revokeHandshake"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's personas, newest first
         * @description Requires scope: `personas`.
         */
        get: operations["listPersonas"];
        put?: never;
        /**
         * Create a persona (inactive until activated)
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createPersona"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/active": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The active persona (404 NOT_FOUND when none is active)
         * @description Requires scope: `personas`.
         */
        get: operations["getActivePersona"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a persona
         * @description Requires scope: `personas`.
         */
        get: operations["getPersona"];
        /**
         * Change some of name, description and soul_content
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updatePersona"];
        post?: never;
        /**
         * Delete a persona and its attachments (the documents and skills themselves stay)
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deletePersona"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make this the active persona; the previously active one is deactivated in the same step
         * @description Exactly one persona is active afterwards. Its soul_content applies to POST /brain/chat and appears in GET /gateway/context.
         *
         *     Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["activatePersona"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/deactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deactivate a persona, leaving none active if it was the active one
         * @description Added to the specification, which has no other way back to "no persona". Deactivating an inactive persona changes nothing and answers it.
         *
         *     Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["deactivatePersona"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The knowledge-base documents attached to a persona
         * @description Requires scope: `personas`.
         */
        get: operations["listPersonaDocuments"];
        put?: never;
        /**
         * Attach one of the owner's knowledge-base documents; 201 when new, 200 when already attached
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["attachPersonaDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/documents/{docId}": {
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
         * Detach a document from a persona (the document itself stays)
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["detachPersonaDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The skills attached to a persona
         * @description Requires scope: `personas`.
         */
        get: operations["listPersonaSkills"];
        put?: never;
        /**
         * Attach one of the owner's skills; 201 when new, 200 when already attached
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["attachPersonaSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/personas/{id}/skills/{skillId}": {
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
         * Detach a skill from a persona (the skill itself stays)
         * @description Requires scope: `personas`. Subject to the token's policy (`personas.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["detachPersonaSkill"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/identity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's public profile, with the professional and availability sections this token may read
         * @description Requires scope: `read` or `identity`.
         */
        get: operations["getIdentity"];
        /**
         * Change the identity with a JSON Merge Patch; answers the whole document
         * @description Requires scope: `identity`. Subject to the token's policy (`identity.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updateIdentity"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/identity/professional": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The professional section of the identity
         * @description Requires scope: `professional` or `identity`.
         */
        get: operations["getProfessionalIdentity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/identity/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The availability section of the identity
         * @description Requires scope: `availability` or `identity`.
         */
        get: operations["getAvailabilityIdentity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's preferences: a free JSON object
         * @description Requires scope: `identity`.
         */
        get: operations["getPreferences"];
        /**
         * Change the preferences with a JSON Merge Patch; answers the whole object
         * @description Requires scope: `identity`. Subject to the token's policy (`identity.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updatePreferences"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Current memory entries, newest first; with q, a ranked search by words and meaning (or every word with match=all), best match first; author, channel, kind, tag and pinned narrow either; include=history adds superseded and expired entries, asOf answers what was current then
         * @description Requires scope: `memory`.
         */
        get: operations["listMemory"];
        put?: never;
        /**
         * Store a memory entry (a note unless kind says otherwise); its author and channel are recorded by the server. 201: stored. 200 with duplicateOf: a current entry already says this, nothing was added (the attempt is counted on it)
         * @description Requires scope: `memory`. Subject to the token's policy (`memory.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createMemory"];
        /**
         * Delete every memory entry of the owner (irreversible)
         * @description Requires scope: `memory`. Subject to the token's policy (`memory.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["clearMemory"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/authors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who wrote the owner's memory entries: each token (named as its newest entry records it, even once revoked or deleted) with how many entries it wrote, newest writer first, at most 500; token null for entries stored before authors were recorded
         * @description Owner only: the master token or a login session.
         */
        get: operations["listMemoryAuthors"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/forget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget everything one token (an agent) wrote: every entry whose author is that token, on any channel, current or not, and nothing else. dryRun counts first; expectedCount makes the deletion refuse (409) if the count changed since. Entries of others that a forgotten entry had replaced are current again when nothing kept replaced them
         * @description Owner only: the master token or a login session.
         */
        post: operations["forgetMemoryAuthor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/{id}": {
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
         * Delete a memory entry
         * @description Requires scope: `memory`. Subject to the token's policy (`memory.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteMemory"];
        options?: never;
        head?: never;
        /**
         * Change a memory entry: its content, or any of kind, tags, pinned, validFrom, validUntil and source (the others stay); the caller is recorded as its last editor
         * @description Requires scope: `memory`. Subject to the token's policy (`memory.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        patch: operations["updateMemory"];
        trace?: never;
    };
    "/api/v1/memory/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chain of entries this one belongs to: the ones it replaced and the ones that replaced it, oldest first
         * @description Requires scope: `memory`.
         */
        get: operations["getMemoryHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The pinned profile: the owner's current pinned entries (core facts, standing instructions) in the owner's order; they lead the gateway context
         * @description Requires scope: `memory`.
         */
        get: operations["getMemoryProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/profile/order": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the order of the pinned profile at once: the ids named first, in that order, the other pinned entries after them as they were
         * @description Owner only: the master token or a login session.
         */
        put: operations["orderMemoryProfile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/memory/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bring memory from another tool (mem0, the MCP memory server, Letta, Obsidian or basic-memory notes, pasted text): all entries or none, with dryRun to see them first
         * @description JSON { format, content, dryRun? } with the text, or multipart/form-data with a file part named file (at most 10 MiB; a .zip of Markdown notes) and format and dryRun fields. Entries are written on the import channel, the tool named in their source. format: mem0, mcp-memory, letta, markdown, text.
         *
         *     Requires scope: `memory`. Subject to the token's policy (`memory.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["importMemory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List knowledge-base documents, newest first, or search them with q
         * @description Requires scope: `knowledge`.
         */
        get: operations["listKBDocuments"];
        put?: never;
        /**
         * Create a document; a title already in use answers 409 (use upsert to replace)
         * @description Requires scope: `knowledge`. Subject to the token's policy (`knowledge.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createKBDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base/passages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The passages of knowledge-base documents that best answer q
         * @description Documents are cut into passages of a few hundred words by their headings and paragraphs. Each hit is one passage: its text (at most 4,000 characters), the document's id and title, the headings above it, and its offsets in the document's text (UTF-16 code units, end exclusive: the text is exactly content.slice(start, end)), with a score (higher is better) and the spans of the text that matched words of q.
         *
         *     Requires scope: `knowledge`.
         */
        get: operations["searchKBPassages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base/upsert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the document with this title, or replace its content if it exists
         * @description Requires scope: `knowledge`. Subject to the token's policy (`knowledge.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["upsertKBDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a .txt, .md, .html, .pdf or .docx file (at most 10 MiB); its text becomes a document
         * @description multipart/form-data with one file part named file, document, upload or kbFile, and optional title (default: the file name) and source (default: upload) fields.
         *
         *     Requires scope: `knowledge`. Subject to the token's policy (`knowledge.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["uploadKBDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a document with its full text
         * @description Requires scope: `knowledge`.
         */
        get: operations["getKBDocument"];
        /**
         * Replace a document's content, and its title or source when given
         * @description Requires scope: `knowledge`. Subject to the token's policy (`knowledge.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updateKBDocument"];
        post?: never;
        /**
         * Delete a document; it is detached from every persona and skill
         * @description Requires scope: `knowledge`. Subject to the token's policy (`knowledge.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteKBDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/knowledge-base/{id}/attachments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The personas and skills this document is attached to
         * @description Requires scope: `knowledge`.
         */
        get: operations["getKBDocumentAttachments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List skills, newest first; filter by slug or category, or search with q (any word ranked, best first; every word with match=all)
         * @description Items carry every field of a skill except `scriptContent`, which can be large: read it from GET /api/v1/skills/{id} or /content.
         *
         *     Requires scope: `skills`.
         */
        get: operations["listSkills"];
        put?: never;
        /**
         * Create a skill; the YAML frontmatter of scriptContent is sanitized
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Up to 10 skills matching what was typed so far, best first
         * @description Requires scope: `skills`.
         */
        get: operations["getSkillSuggestions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/_by_slug/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a skill by its slug, in any case
         * @description Requires scope: `skills`.
         */
        get: operations["getSkillBySlug"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/_batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get several skills at once by id and by slug (at most 200 together); unknown ones are left out
         * @description Requires scope: `skills`.
         */
        get: operations["batchGetSkills"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a skill with its SKILL.md
         * @description Requires scope: `skills`.
         */
        get: operations["getSkill"];
        /**
         * Change some fields of a skill; a new name is a new slug (409 when taken)
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updateSkill"];
        post?: never;
        /**
         * Delete a skill and its attachments
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteSkill"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The SKILL.md of a skill: JSON by default, raw markdown with Accept: text/markdown
         * @description Requires scope: `skills`.
         */
        get: operations["getSkillContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/skill.md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The raw SKILL.md of a skill
         * @description Requires scope: `skills`.
         */
        get: operations["getSkillMarkdown"];
        /**
         * Replace the SKILL.md with a raw text/markdown body; its YAML frontmatter is sanitized
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["putSkillMarkdown"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a skill active
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["activateSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/deactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a skill inactive
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["deactivateSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The knowledge-base documents attached to a skill
         * @description Requires scope: `skills`.
         */
        get: operations["listSkillDocuments"];
        put?: never;
        /**
         * Attach one of your knowledge-base documents to a skill (201 when new, 200 when already attached)
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["attachSkillDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/documents/{docId}": {
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
         * Detach a document from a skill (the document itself stays)
         * @description Requires scope: `skills`. Subject to the token's policy (`skills.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["detachSkillDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{id}/attachments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The personas this skill is attached to
         * @description Requires scope: `skills`.
         */
        get: operations["listSkillAttachments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One search over the owner's memory, knowledge passages and skills, by words and meaning, best first
         * @description Each kind is searched under its own scope (memory, knowledge, skills): without `types`, every kind the token may read; a kind named in `types` that the token may not read answers 403. Each hit carries its id, kind, title, the matching text (bounded, the query's words marked in `marks`), a score comparable within the answer, and whether it matched by words, meaning or both.
         *
         *     Requires scope: `memory` or `knowledge` or `skills`.
         */
        get: operations["search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Which embedder makes the search vectors, and how many of the owner's items are indexed by meaning or still pending
         * @description Owner only: the master token or a login session.
         */
        get: operations["getSearchStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/authorize/{service}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The address that connects an account: Hearth's connect page, then the provider's consent (PKCE; single-use state, valid 10 minutes)
         * @description Requires scope: `services:write`.
         */
        get: operations["oauthAuthorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/callback/{service}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the provider sends the owner's browser back: exchanges the code and stores the tokens encrypted
         * @description Public: no token needed.
         */
        get: operations["oauthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/connect/{service}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The page the authorize url opens: the flow's owner signs in to Hearth, which binds the flow to this browser
         * @description A browser page, not an API call. It names the Hearth account the provider account will be connected to and asks for its password; the callback is refused in any other browser.
         *
         *     Public: no token needed.
         */
        get: operations["oauthConnectPage"];
        put?: never;
        /**
         * The connect page's sign-in: with the owner's password, binds the flow to this browser (a cookie) and goes on to the provider
         * @description Public: no token needed.
         */
        post: operations["oauthConnectSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Each OAuth provider: whether it is configured, and the owner's connection to it
         * @description Requires scope: `services:read`.
         */
        get: operations["oauthStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/disconnect/{service}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke the grant at the provider (best effort) and delete the stored tokens
         * @description Requires scope: `services:write`. Subject to the token's policy (`services.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["oauthDisconnect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/mail/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Messages of the connected Gmail account, newest first (403 PROVIDER_NOT_CONNECTED when not connected)
         * @description Requires scope: `services:read`.
         */
        get: operations["listMailMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/mail/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One message with its text body
         * @description Requires scope: `services:read`.
         */
        get: operations["getMailMessage"];
        put?: never;
        post?: never;
        /**
         * Move a message to Trash (not a permanent deletion)
         * @description Requires scope: `services:write`. Subject to the token's policy (`mail.trash`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["trashMailMessage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/mail/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a plain-text message from the connected Gmail account
         * @description Requires scope: `services:write`. Subject to the token's policy (`mail.send`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["sendMail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/storage/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Files of the connected Google Drive (401 PROVIDER_NOT_CONNECTED when not connected or the file scope is missing)
         * @description Requires scope: `services:read`.
         */
        get: operations["listStorageFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/storage/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a file (up to 5 MB) to the connected Google Drive
         * @description Requires scope: `services:write`. Subject to the token's policy (`files.upload`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["uploadStorageFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/google/storage/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A file of the connected Google Drive with its content (up to 5 MB; Google's documents exported as text)
         * @description Requires scope: `services:read`.
         */
        get: operations["readStorageFile"];
        put?: never;
        post?: never;
        /**
         * Delete a file from the connected Google Drive
         * @description Requires scope: `services:write`. Subject to the token's policy (`files.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteStorageFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service categories, with how many of the services are in each
         * @description Requires scope: `services:read`.
         */
        get: operations["listServiceCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every service the owner can call: the built-in catalogue, the owner's connectors and discovered APIs
         * @description Requires scope: `services:read`.
         */
        get: operations["listServices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{service}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One service: how it authenticates, how to connect it, and its methods
         * @description The specification names this parameter {name}; it is the same value as {service} in the other service routes.
         *
         *     Requires scope: `services:read`.
         */
        get: operations["getService"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{service}/methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A service's methods with the JSON Schema of their params, and the generic `request`
         * @description The specification names this parameter {serviceId}; it is the same value as {service} in the other service routes.
         *
         *     Requires scope: `services:read`.
         */
        get: operations["listServiceMethods"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{service}/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one of a service's methods with the owner's credential
         * @description params are checked against the method's schema (400 with details). The answer is 200 whenever the service answered: its status, safe headers and body are in data (a 404 or 500 of the service is data.status). Redirects are handed back, never followed. 502 UPSTREAM_ERROR when the service cannot be reached; 403 PROVIDER_NOT_CONNECTED when the owner has no credential for it. The specification names this parameter {serviceName}.
         *
         *     Requires scope: `services:write`. Subject to the token's policy (an action class read from the request): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["executeServiceMethod"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{service}/proxy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a raw request to a service, relative to its base address, with the owner's credential
         * @description The path cannot leave the service's base address (absolute addresses, //host, backslashes and dot segments are refused). The caller never sets nor sees the credential. The answer is 200 whenever the service answered: its status, safe headers and body are in data (a 404 or 500 of the service is data.status). Redirects are handed back, never followed. 502 UPSTREAM_ERROR when the service cannot be reached; 403 PROVIDER_NOT_CONNECTED when the owner has no credential for it. The specification names this parameter {serviceName}.
         *
         *     Requires scope: `services:write`. Subject to the token's policy (an action class read from the request): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["proxyServiceRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{service}/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pass a GET through to a service, with its query string and the owner's stored credential
         * @description GET /api/v1/services/github/user/repos?per_page=5 calls GET https://api.github.com/user/repos?per_page=5. ?token= is not passed on when it carried Hearth's token. Fixed routes under /services (methods, the mail and storage routes) take precedence. Some services are RPC-style and act on a GET (Slack's chat.postMessage posts): for those (apiStyle rpc in GET /services/{service}), only a GET of one of their readMethods is a read; any other needs services:write (403 INSUFFICIENT_SCOPE without it) and is services.write under the token's policy. The answer is 200 whenever the service answered: its status, safe headers and body are in data (a 404 or 500 of the service is data.status). Redirects are handed back, never followed. 502 UPSTREAM_ERROR when the service cannot be reached; 403 PROVIDER_NOT_CONNECTED when the owner has no credential for it.
         *
         *     Requires scope: `services:read`. Subject to the token's policy (an action class read from the request): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        get: operations["callConnectedService"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's connectors, newest first
         * @description Requires scope: `services:read`.
         */
        get: operations["listConnectors"];
        put?: never;
        /**
         * Define a service by base address and credential, callable through execute and proxy by its name
         * @description The credential is one of the owner's vault tokens (POST /vault/tokens), never given here. A vault token is attached freely to an address on the site it was stored for (its websiteUrl, or a subdomain of it). Attaching it anywhere else (on create, or when baseUrl or vaultTokenId changes) needs the master token, or a login session that sends the account password in `password` (403 FORBIDDEN without it or when it is wrong; wrong passwords count towards the login slowdown, 429 RATE_LIMITED); a token with only services:write never may. Each such binding and each refusal is audited (`connector.bind`).
         *
         *     Requires scope: `services:write`. Subject to the token's policy (`services.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createConnector"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connectors/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a connector
         * @description Requires scope: `services:read`.
         */
        get: operations["getConnector"];
        /**
         * Change some of a connector's fields
         * @description A vault token is attached freely to an address on the site it was stored for (its websiteUrl, or a subdomain of it). Attaching it anywhere else (on create, or when baseUrl or vaultTokenId changes) needs the master token, or a login session that sends the account password in `password` (403 FORBIDDEN without it or when it is wrong; wrong passwords count towards the login slowdown, 429 RATE_LIMITED); a token with only services:write never may. Each such binding and each refusal is audited (`connector.bind`).
         *
         *     Requires scope: `services:write`. Subject to the token's policy (`services.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updateConnector"];
        post?: never;
        /**
         * Delete a connector (its vault token stays in the vault)
         * @description Requires scope: `services:write`. Subject to the token's policy (`services.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteConnector"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/plans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The plans, with their prices (in cents) and limits
         * @description Public: no token needed.
         */
        get: operations["listBillingPlans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's plan and what they use of each of its limits
         * @description Owner only: the master token or a login session.
         */
        get: operations["getBillingUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a Stripe Checkout page for a paid plan; the plan changes when Stripe confirms the payment
         * @description Owner only: the master token or a login session.
         */
        post: operations["createBillingCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/return": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where Stripe's checkout page sends the browser back: a short HTML page
         * @description Public: no token needed.
         */
        get: operations["billingCheckoutReturn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stripe webhook endpoint: signed events (checkout.session.completed moves the payer to the plan bought)
         * @description Register this address in Stripe (Developers → Webhooks) for checkout.session.completed, checkout.session.async_payment_succeeded and customer.subscription.deleted. Requests must carry a valid Stripe-Signature header.
         *
         *     Public: no token needed.
         */
        post: operations["stripeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/vault/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List stored vault tokens, newest first (never their secrets)
         * @description Requires scope: `vault`.
         */
        get: operations["listVaultTokens"];
        put?: never;
        /**
         * Store a third-party token, encrypted; optionally discover the API of its website
         * @description Requires scope: `vault`. Subject to the token's policy (`vault.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createVaultToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/vault/tokens/{id}": {
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
         * Delete a vault token and its encrypted secret
         * @description Requires scope: `vault`. Subject to the token's policy (`vault.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteVaultToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/vault/tokens/{id}/reveal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Decrypt a vault token: the secret is in data.token (master token only; audited)
         * @description Master token only.
         */
        get: operations["revealVaultToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/vault/discover-api": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Discover what a website publishes for machines: OpenAPI, llms.txt, AI plugin manifest
         * @description Requires scope: `vault`.
         */
        post: operations["discoverApi"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse every publisher's listings: filter by type or words, sort by newest, rating or installs, paged by cursor
         * @description Items carry every listing field except `snapshot` (the published content), which GET /api/v1/marketplace/listings/{id} shows.
         *
         *     Requires scope: `marketplace`.
         */
        get: operations["listMarketplaceListings"];
        put?: never;
        /**
         * Publish one of your skills or personas; the listing keeps a snapshot of it as it is now
         * @description The token also needs the `skills` scope to publish a skill, or `personas` to publish a persona. Listings are free (`price` is 0). One listing per original: publishing it again answers 409; refresh the existing listing instead.
         *
         *     Requires scope: `marketplace`. Subject to the token's policy (`marketplace.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["createMarketplaceListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/listings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One listing with its published snapshot (any publisher)
         * @description Requires scope: `marketplace`.
         */
        get: operations["getMarketplaceListing"];
        /**
         * Change your listing's title or description, or refresh its snapshot from the original
         * @description Only the publisher; another publisher's listing answers 404. `refreshSnapshot: true` needs the `skills` or `personas` scope too.
         *
         *     Requires scope: `marketplace`. Subject to the token's policy (`marketplace.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        put: operations["updateMarketplaceListing"];
        post?: never;
        /**
         * Withdraw your listing; copies already installed stay with those who installed them
         * @description Requires scope: `marketplace`. Subject to the token's policy (`marketplace.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteMarketplaceListing"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/listings/{id}/rate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rate a listing 1 to 5, with an optional review; a second rating replaces your first
         * @description Publishers cannot rate their own listings (403). Answers the listing with its updated average and count.
         *
         *     Requires scope: `marketplace`. Subject to the token's policy (`marketplace.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["rateMarketplaceListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/listings/{id}/ratings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A listing's ratings and reviews, most recently rated first
         * @description Requires scope: `marketplace`.
         */
        get: operations["listMarketplaceListingRatings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/listings/{id}/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copy the listing's snapshot into your account as a new skill or persona
         * @description Needs the `skills` or `personas` scope too, by the listing type. A skill copy keeps `origin: { type: "installed", listingId, installedAt, snapshotAt }` and needs a free name (409 when you already have a skill of that name); a persona copy is a new, inactive persona.
         *
         *     Requires scope: `marketplace`. Subject to the token's policy (`marketplace.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["installMarketplaceListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/marketplace/my-listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your own listings, with the same filters, sorts and paging as the marketplace
         * @description Requires scope: `marketplace`.
         */
        get: operations["listMyMarketplaceListings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's webhooks (never their secrets)
         * @description Owner only: the master token or a login session.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe an address to account events; the answer holds the signing secret, shown this once
         * @description Owner only: the master token or a login session.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook (never its secret)
         * @description Owner only: the master token or a login session.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook with its deliveries (pending ones are never sent)
         * @description Owner only: the master token or a login session.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change a webhook's address, events or whether it is enabled (disabling gives up its pending deliveries)
         * @description Owner only: the master token or a login session.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a `webhook.test` event to this webhook now; the answer is the new delivery, still pending
         * @description At most WEBHOOK_TEST_RATE_LIMIT calls per owner per minute (10 by default), and none while the webhook already has the most deliveries waiting it may hold: 429 `RATE_LIMITED` with `Retry-After` then. 409 when the webhook is disabled
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a webhook the circuit breaker paused: its waiting deliveries are sent now
         * @description A webhook whose endpoint kept failing is paused (`status: "paused"`, event `webhook.paused`) and tried again by one probe delivery after a cool-down. This resumes it at once and clears its failures; a webhook that is not paused is answered as it is. 409 when it is disabled
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["resumeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's deliveries, newest first, each with its attempts
         * @description Owner only: the master token or a login session.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat with the active persona (JSON, or server-sent events with Accept: text/event-stream)
         * @description Builds the prompt from the active persona (its `soul_content` is the system message), the documents attached to it, the knowledge-base passages that best match the message, a few entries of the pinned memory profile and the memory entries relevant to the message (ranked as `GET /api/v1/memory?q=` ranks them, by words and meaning; a token limited to memory tags: only the entries it sees, and only in conversations whose replies cite no entry outside its tags; the others are 404 for it, and left out of its list), and the conversation history, within the context budget (CHAT_CONTEXT_TOKENS, docs/chat.md). The documents and entries are numbered [1], [2]… in the order of `sources`, and the model is asked to cite them by number.
         *
         *     With LLM_BASE_URL set the reply comes from that OpenAI-compatible endpoint (`mode: "llm"`, the model that answered in `model`); without it the reply quotes the best-matching passages with their titles and the best-matching memory entries, and says that no language model wrote it (`mode: "retrieval"`, no `model`). `sources` lists what was used: documents (`type: "knowledge"`) and memory entries (`type: "memory"`, with a short `text`). Omit `conversationId` to start a conversation; the message and the reply are stored together once the reply is complete (a failed turn stores nothing). A failing model answers 502 `UPSTREAM_ERROR`.
         *
         *     Streaming: send `Accept: text/event-stream` to receive the reply as server-sent events: `event: meta` (`{ conversationId, mode, sources, persona, model? }`) first, then `event: delta` (`{ "text": "…" }`) pieces, then `event: done` with the same object as the JSON answer's `data`. A failure after the stream began arrives as `event: error` (`{ "error", "message" }`) and ends the stream; failures before it began are ordinary JSON errors.
         *
         *     Requires scope: `chat`.
         */
        post: operations["chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Chat conversations, most recently active first
         * @description Requires scope: `chat`.
         */
        get: operations["listConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/brain/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A conversation with its newest messages (oldest of them first)
         * @description Requires scope: `chat`.
         */
        get: operations["getConversation"];
        put?: never;
        post?: never;
        /**
         * Delete a conversation and all its messages
         * @description Requires scope: `chat`. Subject to the token's policy (`chat.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["deleteConversation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an export of the whole account as one archive (Markdown, JSON Lines, a manifest with checksums); one at a time
         * @description Answers 201 with the job; follow it with GET /api/v1/export/{id}, and download the archive from its downloadUrl once done (kept 24 hours). The master token, or a login session sending the account password. Secrets only with includeSecrets and a passphrase, encrypted with it. 409 while another export of the account runs.
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["startExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/export/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An export's progress, and where its archive downloads once done
         * @description Owner only: the master token or a login session.
         */
        get: operations["getExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/export/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a finished export (a zip archive)
         * @description Owner only: the master token or a login session.
         */
        get: operations["downloadExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import an archive an export made: into an empty account exactly as it was, into one with data as a merge that never overwrites
         * @description multipart/form-data with the archive in a part named file (at most 256 MiB), and optional passphrase (to bring the secrets) and dryRun fields. With dryRun the answer says what would change and nothing changes. The import runs in one transaction: a refused archive changes nothing.
         *
         *     Owner only: the master token or a login session.
         */
        post: operations["importArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Model Context Protocol: the session's stream of server messages (text/event-stream)
         * @description Any valid token.
         */
        get: operations["mcpStream"];
        put?: never;
        /**
         * Model Context Protocol (Streamable HTTP): send a JSON-RPC message; initialize opens a session
         * @description Any valid token.
         */
        post: operations["mcpPost"];
        /**
         * Model Context Protocol: end the session named by Mcp-Session-Id
         * @description Any valid token.
         */
        delete: operations["mcpEndSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected-resource metadata (RFC 9728) of the MCP endpoint: which authorization server issues its tokens
         * @description Public: no token needed.
         */
        get: operations["getProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected-resource metadata (RFC 9728) of the MCP endpoint: which authorization server issues its tokens
         * @description Public: no token needed.
         */
        get: operations["getMcpProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth authorization-server metadata (RFC 8414): endpoints, PKCE S256, registration
         * @description Public: no token needed.
         */
        get: operations["getAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dynamic client registration (RFC 7591) of an OAuth client such as an MCP client
         * @description Public: no token needed.
         */
        post: operations["registerOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's consent page for an OAuth client (authorization code with PKCE S256)
         * @description Public: no token needed.
         */
        get: operations["authorize"];
        put?: never;
        /**
         * The consent page's answer: the owner signs in and approves or denies
         * @description Public: no token needed.
         */
        post: operations["authorizeDecision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/authorize/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The page that waits for the owner's decision in the console, refreshing itself; then goes on to the client
         * @description Public: no token needed.
         */
        get: operations["authorizeWait"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorization/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Apps' authorization requests sent to this console for a decision, oldest first
         * @description Owner only: the master token or a login session.
         */
        get: operations["listAuthorizationRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorization/requests/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an app's authorization request from the console; the waiting browser then receives the code
         * @description Owner only: the master token or a login session.
         */
        post: operations["approveAuthorizationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorization/requests/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny an app's authorization request from the console; the waiting browser goes back to the app with access_denied
         * @description Owner only: the master token or a login session.
         */
        post: operations["denyAuthorizationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The token endpoint: exchange a code (with its PKCE verifier) or a refresh token (rotated on use)
         * @description Public: no token needed.
         */
        post: operations["oauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Token revocation (RFC 7009): ends the grant of an access or refresh token
         * @description Public: no token needed.
         */
        post: operations["oauthRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/connect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The AFP daemon's WebSocket: the daemon connects here with a token holding the devices scope
         * @description Requires scope: `devices`.
         */
        get: operations["afpConnect"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Registered remote PCs with their online/offline status, platform and privilege
         * @description Requires scope: `devices`.
         */
        get: operations["listAfpDevices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/devices/{deviceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One remote PC
         * @description Requires scope: `devices`.
         */
        get: operations["getAfpDevice"];
        put?: never;
        post?: never;
        /**
         * Forget a remote PC: its record is removed and its daemon's connection closed (the daemon stops). Owner only (master token or login session): it frees the name for a daemon with another device key
         * @description Owner only: the master token or a login session.
         */
        delete: operations["deleteAfpDevice"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/ls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a folder on the device; 503 when it is offline
         * @description Requires scope: `devices`.
         */
        get: operations["afpListDir"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a file (at most 10 MiB): text as UTF-8, binary as base64; 503 when the device is offline
         * @description Requires scope: `devices`.
         */
        get: operations["afpReadFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/write": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Write a file (created or replaced; its folder must exist); needs the write privilege; 503 when offline
         * @description Requires scope: `devices`. Subject to the token's policy (`devices.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["afpWriteFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/exec": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a shell command; needs the exec privilege; 503 when offline, 504 when it runs past its timeout
         * @description Requires scope: `devices`. Subject to the token's policy (`devices.exec`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["afpExec"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/stat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Metadata of a file or folder; 503 when the device is offline
         * @description Requires scope: `devices`.
         */
        get: operations["afpStat"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/rm": {
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
         * Remove a file, link or folder (recursive for one that is not empty); needs the write privilege; 503 when offline
         * @description Requires scope: `devices`. Subject to the token's policy (`devices.delete`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        delete: operations["afpDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/{deviceId}/mkdir": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a folder (with its parents unless recursive is false); needs the write privilege; 503 when offline
         * @description Requires scope: `devices`. Subject to the token's policy (`devices.write`): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.
         */
        post: operations["afpMkdir"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/afp/download/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the AFP daemon for a platform (the README says what each file is and how to run it)
         * @description Public: no token needed.
         */
        get: operations["downloadAfpDaemon"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's console, a web app for everything this API offers (sign in with the account's email and password)
         * @description Public: no token needed.
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/{page}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One of the console's pages, opened directly: agents, connect, memory, knowledge, chat, personas, skills, profile, vault, connections, devices, audit, webhooks, data, plan, users, reset-password
         * @description Public: no token needed.
         */
        get: operations["getConsolePage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A script, style or image of the console; its name carries its content's hash, so it is kept for a year
         * @description Public: no token needed.
         */
        get: operations["getConsoleAsset"];
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
        /** AccountDeleted */
        AccountDeleted: {
            /** @enum {boolean} */
            deleted: true;
            /** @description The id the account had. Nothing on this server refers to it any more */
            userId: string;
            /** @description How many of the account's records were erased, in every table */
            rows: number;
            /** @description How many of the account's files (export archives) were removed from this server's disk */
            files: number;
            providers: {
                /** @description A connected account (OAuth), disconnected first */
                provider: string;
                /** @description Whether the provider confirmed the grant is revoked; if not, remove Hearth's access in that account's security settings */
                revoked: boolean;
            }[];
        };
        /** AccountDeletedResponse */
        AccountDeletedResponse: {
            data: components["schemas"]["AccountDeleted"];
        };
        /** AccountEvent */
        AccountEvent: {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "handshake.created";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["HandshakeCreatedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "handshake.decided";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["HandshakeDecidedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "handshake.claimed";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["HandshakeClaimedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "handshake.revoked";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["HandshakeRevokedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "authorization.requested";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["AuthorizationRequestedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "authorization.decided";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["AuthorizationDecidedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "token.created";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["TokenCreatedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "token.revoked";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["TokenRevokedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "device.online";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["DeviceOnlineData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "device.offline";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["DeviceOfflineData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "oauth.needs_reauth";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["OAuthNeedsReauthData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "login.failed";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["LoginFailedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "approval.requested";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["ApprovalRequestedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "approval.decided";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["ApprovalDecidedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "webhook.paused";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["WebhookPausedData"];
        } | {
            /** @description Unique; sent as the SSE `id:` line */
            id: string;
            /**
             * @description Sent as the SSE `event:` line
             * @enum {string}
             */
            type: "plan.changed";
            /** Format: date-time */
            occurredAt: string;
            data: components["schemas"]["PlanChangedData"];
        };
        /** AfpDaemonMessage */
        AfpDaemonMessage: {
            /** @enum {string} */
            type: "hello";
            protocol: number;
            name: string;
            platform: string;
            privilege: "read" | "write" | "exec";
            root: string;
            version: string;
            key?: string;
        } | {
            /** @enum {string} */
            type: "heartbeat";
        } | ({
            /** @enum {string} */
            type: "response";
            id: string;
            /** @enum {boolean} */
            ok: true;
            result: unknown;
        } | {
            /** @enum {string} */
            type: "response";
            id: string;
            /** @enum {boolean} */
            ok: false;
            error: {
                code: "FORBIDDEN" | "NOT_FOUND" | "INVALID" | "CONFLICT" | "TOO_LARGE" | "TIMEOUT" | "BUSY" | "INTERNAL";
                message: string;
                details?: unknown;
            };
        });
        /** AfpDeleteResult */
        AfpDeleteResult: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            /** @description file, directory, symlink (ls shows links as they are) or other (device, socket, pipe) */
            type: "file" | "directory" | "symlink" | "other";
            /** @enum {boolean} */
            deleted: true;
        };
        /** AfpDeleteResultResponse */
        AfpDeleteResultResponse: {
            data: components["schemas"]["AfpDeleteResult"];
        };
        /** AfpDevice */
        AfpDevice: {
            id: string;
            /** @description The name the daemon registered with (--name; the host name by default) */
            name: string;
            /** @description Operating system and architecture: linux-x64, darwin-arm64, win32-x64… */
            platform: string;
            /** @description read: ls, read, stat; write: also write, mkdir, rm; exec: also exec. Set on the PC, enforced by the daemon */
            privilege: "read" | "write" | "exec";
            status: "online" | "offline";
            /**
             * Format: date-time
             * @description When the server last heard from the daemon
             */
            lastSeenAt: string;
            /** @description The only folder the daemon may touch (absolute paths must lie inside it) */
            root: string;
            /** @description The daemon's version */
            version: string;
            /** Format: date-time */
            createdAt: string;
        };
        /** AfpDeviceList */
        AfpDeviceList: {
            data: components["schemas"]["AfpDevice"][];
        };
        /** AfpDeviceResponse */
        AfpDeviceResponse: {
            data: components["schemas"]["AfpDevice"];
        };
        /** AfpDirectoryListing */
        AfpDirectoryListing: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            /** @description Sorted by name */
            entries: {
                name: string;
                /** @description file, directory, symlink (ls shows links as they are) or other (device, socket, pipe) */
                type: "file" | "directory" | "symlink" | "other";
                /** @description Bytes (of the link itself for a symlink) */
                size: number;
                /**
                 * Format: date-time
                 * @description Last modification, ISO 8601 UTC
                 */
                modifiedAt: string;
            }[];
            /** @description True when the directory holds more than 10000 entries and only the first ones are listed */
            truncated: boolean;
        };
        /** AfpDirectoryListingResponse */
        AfpDirectoryListingResponse: {
            data: components["schemas"]["AfpDirectoryListing"];
        };
        /** AfpExecResult */
        AfpExecResult: {
            stdout: string;
            stderr: string;
            /** @description Null when the command was ended by a signal */
            exitCode: number | null;
            /** @description The signal that ended the command, if one did */
            signal: string | null;
            /** @description True when stdout or stderr was longer than 1048576 bytes and was cut */
            truncated: boolean;
            durationMs: number;
        };
        /** AfpExecResultResponse */
        AfpExecResultResponse: {
            data: components["schemas"]["AfpExecResult"];
        };
        /** AfpFileContent */
        AfpFileContent: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            content: string;
            /** @description utf8 for text; base64 for binary files (a NUL byte or invalid UTF-8), or when asked for */
            encoding: "utf8" | "base64";
            /** @description Bytes of the file */
            size: number;
        };
        /** AfpFileContentResponse */
        AfpFileContentResponse: {
            data: components["schemas"]["AfpFileContent"];
        };
        /** AfpLinkFrames */
        AfpLinkFrames: {
            daemonSends: components["schemas"]["AfpDaemonMessage"];
            serverSends: components["schemas"]["AfpServerMessage"];
        };
        /** AfpMkdirResult */
        AfpMkdirResult: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            /** @description False when the directory already existed */
            created: boolean;
        };
        /** AfpMkdirResultResponse */
        AfpMkdirResultResponse: {
            data: components["schemas"]["AfpMkdirResult"];
        };
        /** AfpServerMessage */
        AfpServerMessage: {
            /** @enum {string} */
            type: "registered";
            deviceId: string;
            heartbeatMs: number;
        } | {
            /** @enum {string} */
            type: "heartbeat";
        } | {
            /** @enum {string} */
            type: "request";
            id: string;
            op: "ls" | "read" | "write" | "exec" | "stat" | "rm" | "mkdir";
            args: {
                [key: string]: unknown;
            };
        };
        /** AfpStat */
        AfpStat: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            /** @description file, directory, symlink (ls shows links as they are) or other (device, socket, pipe) */
            type: "file" | "directory" | "symlink" | "other";
            size: number;
            /**
             * Format: date-time
             * @description Last modification, ISO 8601 UTC
             */
            modifiedAt: string;
            /** @description Permission bits in octal, e.g. 0644 */
            mode: string;
        };
        /** AfpStatResponse */
        AfpStatResponse: {
            data: components["schemas"]["AfpStat"];
        };
        /** AfpWriteResult */
        AfpWriteResult: {
            /** @description The absolute path on the device, symbolic links resolved */
            path: string;
            /** @description Bytes written */
            size: number;
            /** @description True when the file did not exist before */
            created: boolean;
        };
        /** AfpWriteResultResponse */
        AfpWriteResultResponse: {
            data: components["schemas"]["AfpWriteResult"];
        };
        /** Approval */
        Approval: {
            id: string;
            /** @description `pending` until decided or expired; `approved` while it runs; `executed` when the request answered 2xx, `failed` when it answered an error (the token revoked, a scope taken away, the route refusing) or the server stopped while running it (it is then not run again) */
            status: "pending" | "approved" | "denied" | "expired" | "executed" | "failed";
            /** @description An action class (`devices.exec`) */
            actionClass: "devices.exec" | "devices.write" | "devices.delete" | "mail.send" | "mail.trash" | "files.upload" | "files.delete" | "services.write" | "memory.write" | "memory.delete" | "knowledge.write" | "knowledge.delete" | "identity.write" | "personas.write" | "personas.delete" | "skills.write" | "skills.delete" | "chat.delete" | "marketplace.write" | "vault.write";
            /** @description The token that made the request, and as which it runs once approved */
            tokenId: string;
            tokenName: string;
            method: string;
            /** @description The request path with its query exactly as received and as it runs once approved (a `token` query parameter removed) */
            path: string;
            operationId: string | null;
            /** @description What the request does, in words */
            description: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string;
            decidedAt: string | null;
            /** @description The owner token that decided */
            decidedBy: string | null;
            executedAt: string | null;
            /** @description The HTTP status the request answered once run */
            resultStatus: number | null;
            /** @description Shown only to the token that made the request, for 24 hours after it ran */
            result: {
                status: number;
                /** @description What the request answered: its JSON, or its text */
                body: unknown;
            } | null;
        };
        /** ApprovalDecidedData */
        ApprovalDecidedData: {
            approvalId: string;
            tokenId: string;
            /** @description An action class (`devices.exec`) */
            actionClass: "devices.exec" | "devices.write" | "devices.delete" | "mail.send" | "mail.trash" | "files.upload" | "files.delete" | "services.write" | "memory.write" | "memory.delete" | "knowledge.write" | "knowledge.delete" | "identity.write" | "personas.write" | "personas.delete" | "skills.write" | "skills.delete" | "chat.delete" | "marketplace.write" | "vault.write";
            decision: "approved" | "denied";
        };
        /** ApprovalDetail */
        ApprovalDetail: {
            id: string;
            /** @description `pending` until decided or expired; `approved` while it runs; `executed` when the request answered 2xx, `failed` when it answered an error (the token revoked, a scope taken away, the route refusing) or the server stopped while running it (it is then not run again) */
            status: "pending" | "approved" | "denied" | "expired" | "executed" | "failed";
            /** @description An action class (`devices.exec`) */
            actionClass: "devices.exec" | "devices.write" | "devices.delete" | "mail.send" | "mail.trash" | "files.upload" | "files.delete" | "services.write" | "memory.write" | "memory.delete" | "knowledge.write" | "knowledge.delete" | "identity.write" | "personas.write" | "personas.delete" | "skills.write" | "skills.delete" | "chat.delete" | "marketplace.write" | "vault.write";
            /** @description The token that made the request, and as which it runs once approved */
            tokenId: string;
            tokenName: string;
            method: string;
            /** @description The request path with its query exactly as received and as it runs once approved (a `token` query parameter removed) */
            path: string;
            operationId: string | null;
            /** @description What the request does, in words */
            description: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string;
            decidedAt: string | null;
            /** @description The owner token that decided */
            decidedBy: string | null;
            executedAt: string | null;
            /** @description The HTTP status the request answered once run */
            resultStatus: number | null;
            /** @description Shown only to the token that made the request, for 24 hours after it ran */
            result: {
                status: number;
                /** @description What the request answered: its JSON, or its text */
                body: unknown;
            } | null;
            /** @description The exact held request, for the owner who decides (null for the token that made it, which sent it): method, path, every body field */
            request: components["schemas"]["HeldRequest"] | null;
        };
        /** ApprovalDetailResponse */
        ApprovalDetailResponse: {
            data: components["schemas"]["ApprovalDetail"];
        };
        /** ApprovalPage */
        ApprovalPage: {
            data: components["schemas"]["Approval"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** ApprovalPending */
        ApprovalPending: {
            data: {
                approvalId: string;
                /** @enum {string} */
                status: "pending";
                /** Format: date-time */
                expiresAt: string;
            };
        };
        /**
         * ApprovalRequestedData
         * @description A token's request was held for the owner's approval; its description is read from the approval
         */
        ApprovalRequestedData: {
            approvalId: string;
            /** @description The token whose request waits for the decision */
            tokenId: string;
            tokenName: string;
            /** @description An action class (`devices.exec`) */
            actionClass: "devices.exec" | "devices.write" | "devices.delete" | "mail.send" | "mail.trash" | "files.upload" | "files.delete" | "services.write" | "memory.write" | "memory.delete" | "knowledge.write" | "knowledge.delete" | "identity.write" | "personas.write" | "personas.delete" | "skills.write" | "skills.delete" | "chat.delete" | "marketplace.write" | "vault.write";
            /** Format: date-time */
            expiresAt: string;
        };
        /** ApprovalResponse */
        ApprovalResponse: {
            data: components["schemas"]["Approval"];
        };
        /** AttachResultResponse */
        AttachResultResponse: {
            data: {
                /** @enum {boolean} */
                attached: true;
                /** @description false when the link already existed (attaching is idempotent) */
                created: boolean;
            };
        };
        /** AttachedDocument */
        AttachedDocument: {
            id: string;
            title: string;
            source: string;
            sizeBytes: number;
            /** Format: date-time */
            attachedAt: string;
        };
        /** AttachedDocumentList */
        AttachedDocumentList: {
            data: components["schemas"]["AttachedDocument"][];
        };
        /** AttachedSkill */
        AttachedSkill: {
            id: number;
            slug: string;
            name: string;
            description: string;
            category: string;
            /** Format: date-time */
            attachedAt: string;
        };
        /** AttachedSkillList */
        AttachedSkillList: {
            data: components["schemas"]["AttachedSkill"][];
        };
        /** AttachingPersona */
        AttachingPersona: {
            id: string;
            name: string;
            active: boolean;
            /** Format: date-time */
            attachedAt: string;
        };
        /** AttachingPersonaList */
        AttachingPersonaList: {
            data: components["schemas"]["AttachingPersona"][];
        };
        /** AttachingSkill */
        AttachingSkill: {
            id: number;
            slug: string;
            name: string;
            /** Format: date-time */
            attachedAt: string;
        };
        /** AuditEntry */
        AuditEntry: {
            id: string;
            /** @description What happened, e.g. auth.login, token.create, handshake.approve, vault.reveal */
            action: string;
            outcome: "success" | "failure" | "denied";
            /** @description The acting token (never its secret) */
            tokenId: string | null;
            ip: string | null;
            userAgent: string | null;
            targetType: string | null;
            targetId: string | null;
            details: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
        };
        /** AuditEntryPage */
        AuditEntryPage: {
            data: components["schemas"]["AuditEntry"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** AuthorizationDecidedData */
        AuthorizationDecidedData: {
            requestId: string;
            /** @description The OAuth client asking to connect */
            clientId: string;
            /** @description The name the client registered under */
            clientName: string;
            decision: "approved" | "denied";
        };
        /** AuthorizationRequest */
        AuthorizationRequest: {
            id: string;
            client: components["schemas"]["AuthorizationRequestClient"];
            requestedScopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
            /** @description pending until the owner decides; the waiting browser then goes on to the client with a code or access_denied */
            status: "pending" | "approved" | "denied";
            /** @description What the owner granted; null until approved */
            grantedScopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[] | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Not decided by then, the request expires and the app must start again
             */
            expiresAt: string;
        };
        /** AuthorizationRequestClient */
        AuthorizationRequestClient: {
            /** @description The OAuth client id */
            id: string;
            /** @description The name the client registered under (its own words: not proof of who it is) */
            name: string;
            /** @description Where the access would be sent: the host of the redirect URI */
            redirectHost: string;
        };
        /** AuthorizationRequestList */
        AuthorizationRequestList: {
            data: components["schemas"]["AuthorizationRequest"][];
        };
        /** AuthorizationRequestResponse */
        AuthorizationRequestResponse: {
            data: components["schemas"]["AuthorizationRequest"];
        };
        /**
         * AuthorizationRequestedData
         * @description An app's authorization request was sent to the owner's console for a decision
         */
        AuthorizationRequestedData: {
            requestId: string;
            /** @description The OAuth client asking to connect */
            clientId: string;
            /** @description The name the client registered under */
            clientName: string;
            requestedScopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
        };
        /** AuthorizationServerMetadata */
        AuthorizationServerMetadata: {
            issuer: string;
            authorization_endpoint: string;
            token_endpoint: string;
            registration_endpoint: string;
            revocation_endpoint: string;
            scopes_supported: string[];
            response_types_supported: string[];
            response_modes_supported: string[];
            grant_types_supported: string[];
            token_endpoint_auth_methods_supported: string[];
            revocation_endpoint_auth_methods_supported: string[];
            code_challenge_methods_supported: string[];
            authorization_response_iss_parameter_supported: boolean;
            client_id_metadata_document_supported: boolean;
            service_documentation: string;
        };
        /**
         * BrowserSession
         * @description The session itself travels only in the HttpOnly cookie, never in the body
         */
        BrowserSession: {
            user: components["schemas"]["User"];
            /** Format: date-time */
            expiresAt: string;
            /** @description The page's proof that it opened this session: keep it in the origin's web storage and send it as X-Hearth-Session-Binding with every request. The cookie is accepted only with it, because pages on other ports of the same host can set the cookie. It grants nothing without the cookie */
            sessionBinding: string;
        };
        /** BrowserSessionResponse */
        BrowserSessionResponse: {
            data: components["schemas"]["BrowserSession"];
        };
        /** Capability */
        Capability: {
            /** @description The capability: the OpenAPI tag of its routes, e.g. `memory` */
            name: string;
            /** @description True when this token may call at least one of its endpoints */
            available: boolean;
            endpoints: {
                method: string;
                path: string;
                operationId: string;
                summary: string;
                /** @description Whether this token may call it */
                allowed: boolean;
            }[];
            /** @description Scopes that would open the endpoints this token may not call (owner-only routes need the master token or a login session instead) */
            missingScopes: string[];
        };
        /** CapabilityManifest */
        CapabilityManifest: {
            version: string;
            /** @description The scopes this token holds */
            scopes: string[];
            capabilities: components["schemas"]["Capability"][];
        };
        /** CapabilityManifestResponse */
        CapabilityManifestResponse: {
            data: components["schemas"]["CapabilityManifest"];
        };
        /** ChatMessage */
        ChatMessage: {
            id: string;
            role: "user" | "assistant";
            content: string;
            /** @description Empty on user messages */
            sources: components["schemas"]["ChatSource"][];
            /** @description Null on user messages */
            mode: ("llm" | "retrieval") | null;
            model: string | null;
            /** Format: date-time */
            createdAt: string;
        };
        /** ChatReply */
        ChatReply: {
            conversationId: string;
            reply: string;
            /** @description What the prompt (or the quoted answer) used, in the order the prompt numbers them: knowledge-base documents, then memory entries */
            sources: components["schemas"]["ChatSource"][];
            /** @description `llm`: written by the configured language model (LLM_BASE_URL), named in `model`. `retrieval`: no model is configured; the reply quotes the best-matching knowledge-base passages and memory entries, and says that no model wrote it */
            mode: "llm" | "retrieval";
            /** @description The persona that was active for this reply; null when none is */
            persona: {
                id: string;
                name: string;
            } | null;
            /** @description The model that answered (mode `llm`) */
            model?: string;
            usage?: components["schemas"]["ChatUsage"];
        };
        /** ChatReplyResponse */
        ChatReplyResponse: {
            data: components["schemas"]["ChatReply"];
        };
        /** ChatSource */
        ChatSource: {
            /** @description The knowledge-base document id (`type` knowledge) or the memory entry id (`type` memory) */
            id: string;
            /** @description The document's title, or a memory entry's first words */
            title: string;
            /** @description What the source is: a knowledge-base document (a persona document or a passage of one) or a memory entry. The prompt numbers the sources in their order, [1] first, so a reply citing [2] means the second */
            type: "knowledge" | "memory";
            /** @description A memory entry's text, on one line, cut to 280 characters (`type` memory) */
            text?: string;
        };
        /**
         * ChatUsage
         * @description Token counts as the language model reported them (mode `llm`, when the endpoint reports them)
         */
        ChatUsage: {
            promptTokens: number;
            completionTokens: number;
            totalTokens: number;
        };
        /** CheckoutSession */
        CheckoutSession: {
            /** @description Stripe's hosted checkout page: open it in a browser */
            url: string;
            /** @description The Stripe Checkout Session id (cs_…) */
            sessionId: string;
        };
        /** CheckoutSessionResponse */
        CheckoutSessionResponse: {
            data: components["schemas"]["CheckoutSession"];
        };
        /** ClientRegistration */
        ClientRegistration: {
            redirect_uris?: string[];
            client_name?: string;
            client_uri?: string;
            token_endpoint_auth_method?: string;
            grant_types?: string[];
            response_types?: string[];
            scope?: string;
        } & {
            [key: string]: unknown;
        };
        /** Connector */
        Connector: {
            id: string;
            name: string;
            baseUrl: string;
            authType: "bearer" | "header" | "query" | "none";
            vaultTokenId: string | null;
            headerName: string | null;
            queryParam: string | null;
            /** @description rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy. Mark a connector rpc when its API acts on GET requests (Slack-like Web APIs), so that a services:read token cannot write through it */
            apiStyle: "rest" | "rpc";
            /** @description The read methods of an rpc connector; empty for rest */
            readMethods: string[];
            /** @description False when the vault token the connector uses has been deleted */
            connected: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** ConnectorPage */
        ConnectorPage: {
            data: components["schemas"]["Connector"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** ConnectorResponse */
        ConnectorResponse: {
            data: components["schemas"]["Connector"];
        };
        /** ConsentForm */
        ConsentForm: {
            [key: string]: string | string[];
        };
        /** Conversation */
        Conversation: {
            id: string;
            title: string;
            /** @description All messages of the conversation */
            messageCount: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The newest `limit` messages, oldest of them first */
            messages: components["schemas"]["ChatMessage"][];
            /** @description Pass as `before` to read the messages older than these; null when there are none */
            olderMessagesCursor: string | null;
        };
        /** ConversationResponse */
        ConversationResponse: {
            data: components["schemas"]["Conversation"];
        };
        /** ConversationSummary */
        ConversationSummary: {
            id: string;
            /** @description The start of the first message */
            title: string;
            messageCount: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** ConversationSummaryPage */
        ConversationSummaryPage: {
            data: components["schemas"]["ConversationSummary"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** CreatedWebhook */
        CreatedWebhook: {
            id: string;
            url: string;
            events: string[];
            /** @description A disabled webhook is sent nothing; its pending deliveries are given up */
            enabled: boolean;
            /** @description `active`: sent to. `paused`: its endpoint kept failing, so the circuit breaker stopped sending to it until `pausedUntil`, when one probe delivery is tried (its success resumes it); its deliveries wait meanwhile, and `POST /webhooks/{id}/resume` resumes it at once. `disabled`: `enabled` is false */
            status: "active" | "paused" | "disabled";
            /** @description While paused: when the probe delivery is due (a time past means it is due or under way); null otherwise */
            pausedUntil: string | null;
            /** @description Attempts that failed in a row; a success resets it */
            consecutiveFailures: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The signing secret (`whsec_` + base64 of 32 random bytes, as Standard Webhooks defines it). Shown only in this answer: keep it, it cannot be read again */
            secret: string;
        };
        /** CreatedWebhookResponse */
        CreatedWebhookResponse: {
            data: components["schemas"]["CreatedWebhook"];
        };
        /** Deleted */
        Deleted: {
            id: string;
            /** @enum {boolean} */
            deleted: true;
        };
        /** DeletedResponse */
        DeletedResponse: {
            data: components["schemas"]["Deleted"];
        };
        /** DeletedWebhook */
        DeletedWebhook: {
            id: string;
            /** @enum {boolean} */
            deleted: true;
        };
        /** DeletedWebhookResponse */
        DeletedWebhookResponse: {
            data: components["schemas"]["DeletedWebhook"];
        };
        /** Detached */
        Detached: {
            /** @enum {boolean} */
            detached: true;
        };
        /** DetachedResponse */
        DetachedResponse: {
            data: components["schemas"]["Detached"];
        };
        /** DeviceOfflineData */
        DeviceOfflineData: {
            deviceId: string;
            /** @description The name the daemon registered the PC under */
            name: string;
        };
        /** DeviceOnlineData */
        DeviceOnlineData: {
            deviceId: string;
            /** @description The name the daemon registered the PC under */
            name: string;
        };
        /** DiscoveredApi */
        DiscoveredApi: {
            title: string | null;
            description: string | null;
            /** @description The document's first server, else the site's origin */
            baseUrl: string;
            /** @description The document's server, when it is not on the website's site (or is cleartext for an https site): baseUrl is then the site's origin */
            baseUrlRejected?: string;
            documents: {
                kind: "openapi" | "llms" | "ai-plugin";
                url: string;
            }[];
            authSchemes: {
                name: string;
                /** @description OpenAPI 3 terms: http, apiKey, oauth2, openIdConnect, mutualTLS */
                type: string;
                /** @description For http: bearer, basic, … */
                scheme?: string;
                /** @description For apiKey: header, query or cookie */
                in?: string;
                /** @description For apiKey: the header, query parameter or cookie name */
                paramName?: string;
            }[];
            /** @description All operations in the document */
            operationCount: number;
            /** @description The first 200 operations */
            operations: {
                operationId: string;
                method: string;
                path: string;
                summary: string | null;
            }[];
        };
        /** DiscoveredApiResponse */
        DiscoveredApiResponse: {
            data: components["schemas"]["DiscoveredApi"];
        };
        /** DiscoveryDocument */
        DiscoveryDocument: {
            name: string;
            /** @description The API version; the same as the OpenAPI document's info.version */
            version: string;
            /** @description Guidance every agent client must follow */
            important: string;
            description: string;
            /** @description The base address to use as is (PUBLIC_BASE_URL): every path already begins with /api/v1, so add the paths to it unchanged */
            canonicalBaseUrl: string;
            documentation: {
                /** @description Absolute address of the OpenAPI 3.1 document */
                openapi: string;
                /** @description Absolute address of the quick-start document */
                quickStart: string;
                /** @description Absolute address of the text guide for language-model clients */
                llms: string;
            };
            authentication: {
                /** @enum {string} */
                type: "bearer";
                header: string;
                /** @description The query parameter that carries the token for tools that cannot set headers */
                query_param: string;
                hint: string;
            };
            /** @description Every route: its operationId mapped to `METHOD /path` */
            endpoints: {
                [key: string]: string;
            };
        };
        /** DiscoveryRequest */
        DiscoveryRequest: {
            /**
             * Format: uri
             * @description An http(s) address, e.g. https://api.example.com
             */
            websiteUrl: string;
        };
        /** DocumentUsageResponse */
        DocumentUsageResponse: {
            data: {
                documentId: string;
                personas: components["schemas"]["AttachingPersona"][];
                skills: components["schemas"]["AttachingSkill"][];
            };
        };
        /** DriveFile */
        DriveFile: {
            id: string;
            name: string;
            mimeType: string;
            /** @description Bytes; null for Google Docs, Sheets and folders */
            size: number | null;
            modifiedTime: string | null;
            webViewLink: string | null;
        };
        /** DriveFileContent */
        DriveFileContent: {
            success: boolean;
            file: components["schemas"]["DriveFile"];
            /** @description The file: text as it is, anything else base64 (see encoding) */
            content: string;
            encoding: "utf8" | "base64";
            /** @description For Google's own documents, the type they were exported as (text/plain, text/csv, image/svg+xml); null for ordinary files */
            exportedAs: string | null;
        };
        /** DriveFileDeleted */
        DriveFileDeleted: {
            success: boolean;
            fileId: string;
            /** @enum {boolean} */
            deleted: true;
        };
        /** DriveFileList */
        DriveFileList: {
            success: boolean;
            files: components["schemas"]["DriveFile"][];
            nextPageToken: string | null;
        };
        /** DriveUploadResult */
        DriveUploadResult: {
            success: boolean;
            file: components["schemas"]["DriveFile"];
        };
        /** Embedder */
        Embedder: {
            /** @description builtin: the encoder shipped with Hearth; openai: an OpenAI-compatible endpoint (EMBEDDINGS_BASE_URL); off: search by words only */
            kind: "builtin" | "openai" | "off";
            /** @description The model every stored vector of this embedder records */
            model: string;
            /** @description The vectors' length, once known */
            dimensions: number | null;
            /** @description idle: not started (the built-in worker starts on first need and stops when idle); loading; ready; failed: search uses words only until it recovers; off */
            state: "idle" | "loading" | "ready" | "failed" | "off";
        };
        /** ErrorResponse */
        ErrorResponse: {
            /** @description A code from the closed list in the README, e.g. NOT_FOUND */
            error: string;
            /** @description What went wrong and how to fix it */
            message: string;
            details?: unknown;
            /** @description Present on 5xx answers, to find the failure in the logs */
            requestId?: string;
        };
        /** ExportJob */
        ExportJob: {
            id: string;
            /** @description running, then done (the archive can be downloaded until expiresAt) or failed (error says why); expired once the archive is removed */
            status: "running" | "done" | "failed" | "expired";
            includesSecrets: boolean;
            /** @description Records written of the records to write */
            progress: {
                done: number;
                total: number;
            };
            sizeBytes: number | null;
            /** @description The SHA-256 of the archive file, once done */
            sha256: string | null;
            error: string | null;
            /** Format: date-time */
            createdAt: string;
            finishedAt: string | null;
            expiresAt: string | null;
            /** @description Once done: where the archive downloads (with the same credentials) */
            downloadUrl: string | null;
        };
        /** ExportJobResponse */
        ExportJobResponse: {
            data: components["schemas"]["ExportJob"];
        };
        /** GatewayContext */
        GatewayContext: {
            /** @description The owner of this Hearth */
            user?: {
                id: string;
                name: string | null;
                /** @description Only for tokens holding the `identity` scope */
                email?: string;
            };
            /** @description The active persona (scope `personas`); null when none is active */
            persona?: {
                id: string;
                name: string;
                description: string;
                /** @description The persona instructions to follow */
                soul_content: string;
                skills: {
                    id: number;
                    slug: string;
                    name: string;
                }[];
                documents: {
                    id: string;
                    title: string;
                }[];
            } | null;
            /** @description The owner's identity, limited to the sections the token may read (`read`, `professional`, `availability`, `identity`) */
            identity?: {
                [key: string]: unknown;
            };
            /** @description The owner's preferences (scope `identity`) */
            preferences?: {
                [key: string]: unknown;
            };
            /** @description The current memory entries (neither superseded nor expired) with ids and timestamps: the pinned profile first, in the owner's order, then the newest, at most GATEWAY_MEMORY_LIMIT (default 100) in all; with task, those relevant to it after the profile (scope `memory`) */
            memory?: {
                entries: components["schemas"]["MemoryContextEntry"][];
                /** @description How many entries the owner has (a token limited to memory tags: how many it sees) */
                total: number;
                /** @description True when not every entry is shown: only the newest (GATEWAY_MEMORY_LIMIT, default 100), or, with task or maxTokens, those chosen for them */
                truncated: boolean;
                /** @description Only when the owner pinned entries: the first `pinned` entries are the pinned profile (core facts, standing instructions), in the owner's order (GET /memory/profile) */
                pinned?: number;
                /** @description Only with task: the `relevant` entries after the pinned ones are those that match the task, best first (the ranking of GET /memory?q=); the newest others follow while they fit */
                relevant?: number;
            };
            /** @description The active skills (scope `skills`) */
            skills?: {
                id: number;
                slug: string;
                name: string;
                description: string;
                category: string;
            }[];
            /** @description The knowledge base: how many documents, and the most recently changed; with task, the passages that match it (scope `knowledge`) */
            knowledge?: {
                documentCount: number;
                recent: {
                    id: string;
                    title: string;
                    /** Format: date-time */
                    updatedAt: string;
                }[];
                /** @description Only with task: what of the knowledge base matches the task, best first */
                relevant?: {
                    /** @description The passage id once documents are cut into passages; until then the document id */
                    id: string;
                    /** @description The document's title */
                    title: string;
                    /** @description The passage that matches the task (bounded) */
                    text: string;
                    /** @description Higher is better; comparable within one answer */
                    score: number;
                    matched?: "words" | "meaning" | "both";
                    /** @description For a passage: its document (read it whole with GET /brain/knowledge-base/{id}) and where the passage lies in its text */
                    document?: {
                        id: string;
                        title: string;
                        headingPath: string[];
                        start: number;
                        end: number;
                    };
                }[];
            };
            /** @description Accounts connected through OAuth (scope `services:read`); never their tokens */
            services?: {
                provider: string;
                account: string | null;
                /** @description `connected`, or `needs_reauth` when the owner must connect again */
                status: string;
                scopes: string[];
            }[];
            /** @description The owner's own services, callable by name through /services/{name}/execute and /proxy (scope `services:read`) */
            connectors?: {
                id: string;
                name: string;
                baseUrl: string;
                authType: string;
                connected: boolean;
            }[];
            /** @description Every non-public route this token may call, as `METHOD /path` */
            endpoints: string[];
            /** @description The calling token */
            token: {
                id: string;
                kind: string;
                scopes: string[];
                /** @description Only for a token limited to memory tags: it sees and writes only entries carrying one of them */
                memoryTags?: string[];
            };
            /** @description Only with maxTokens: how the answer fits its budget */
            budget?: {
                /** @description The budget asked for */
                maxTokens: number;
                /** @description Tokens of this whole answer, estimated as maxTokens is */
                usedTokens: number;
                /** @description True when a section was cut to fit */
                truncated: boolean;
                /** @description The sections that were cut to fit; their full content is a request away (GET /memory, /brain/knowledge-base, /tokens/me/capabilities) */
                trimmed: string[];
            };
        } & {
            [key: string]: unknown;
        };
        /** GatewayContextResponse */
        GatewayContextResponse: {
            data: components["schemas"]["GatewayContext"];
        };
        /** Handshake */
        Handshake: {
            handshakeId: string;
            agentId: string;
            requestedScopes: ("read" | "professional" | "availability")[];
            message: string;
            /** @description A handshake not decided in time, or revoked, reads `denied` */
            status: "pending" | "approved" | "denied";
            /** @description The token made on approval (never its secret) */
            tokenId: string | null;
            /** @description The address the request came from */
            clientIp: string | null;
            userAgent: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description A pending handshake not decided by then reads `denied`
             */
            expiresAt: string;
            /** @description When the handshake left `pending`: the decision, or the revocation or expiry that closed it undecided; null while pending */
            decidedAt: string | null;
            revokedAt: string | null;
            /** @description The scopes granted on approval, which may differ from those asked for; null until approved */
            grantedScopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[] | null;
            /** @description When the agent collected its token with its claim secret */
            claimedAt: string | null;
        };
        /** HandshakeApproval */
        HandshakeApproval: {
            handshake: components["schemas"]["Handshake"];
            /** @description The agent's new token. Shown this once: pass it on to the agent out of band */
            token: string;
        };
        /** HandshakeApprovalResponse */
        HandshakeApprovalResponse: {
            data: components["schemas"]["HandshakeApproval"];
        };
        /** HandshakeClaim */
        HandshakeClaim: {
            /** @description Your bearer token. Handed over this once: store it safely */
            token: string;
            /** @description What the owner granted, which may differ from what was asked */
            scopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
        };
        /** HandshakeClaimResponse */
        HandshakeClaimResponse: {
            data: components["schemas"]["HandshakeClaim"];
        };
        /** HandshakeClaimedData */
        HandshakeClaimedData: {
            handshakeId: string;
            /** @description The name the agent gave itself */
            agentId: string;
            tokenId: string | null;
        };
        /** HandshakeCreated */
        HandshakeCreated: {
            /** @description Keep it: it is the only way to read the answer */
            handshakeId: string;
            /** @enum {string} */
            status: "pending";
            /** Format: date-time */
            expiresAt: string;
            /** @description Poll this path until the status is approved or denied */
            statusUrl: string;
            /** @description Shown this once: keep it secret. Once the status reads approved, POST it to claimUrl to receive the token (once) */
            claimSecret: string;
            /** @description Where to collect the token after approval */
            claimUrl: string;
        };
        /** HandshakeCreatedData */
        HandshakeCreatedData: {
            handshakeId: string;
            /** @description The name the agent gave itself */
            agentId: string;
            requestedScopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
        };
        /** HandshakeCreatedResponse */
        HandshakeCreatedResponse: {
            data: components["schemas"]["HandshakeCreated"];
        };
        /** HandshakeDecidedData */
        HandshakeDecidedData: {
            handshakeId: string;
            /** @description The name the agent gave itself */
            agentId: string;
            decision: "approved" | "denied";
            /** @description The token an approval made; null for a denial */
            tokenId: string | null;
        };
        /** HandshakePage */
        HandshakePage: {
            data: components["schemas"]["Handshake"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** HandshakeResponse */
        HandshakeResponse: {
            data: components["schemas"]["Handshake"];
        };
        /** HandshakeRevokedData */
        HandshakeRevokedData: {
            handshakeId: string;
            /** @description The name the agent gave itself */
            agentId: string;
            tokenId: string | null;
        };
        /** HandshakeStatus */
        HandshakeStatus: {
            handshakeId: string;
            /** @description A handshake not decided in time, or revoked, reads `denied` */
            status: "pending" | "approved" | "denied";
            /** Format: date-time */
            expiresAt: string;
            /** @description When the handshake left `pending`: the decision, or the revocation or expiry that closed it undecided; null while pending */
            decidedAt: string | null;
        };
        /** HandshakeStatusResponse */
        HandshakeStatusResponse: {
            data: components["schemas"]["HandshakeStatus"];
        };
        /** Health */
        Health: {
            /** @description `ok` (200): the node serves and its database answers. `draining` (503): the node is shutting down; it finishes what it has and takes nothing new. `unavailable` (503): its database does not answer */
            status: "ok" | "draining" | "unavailable";
            node: components["schemas"]["HealthNode"];
            database: components["schemas"]["HealthDatabase"];
        };
        /** HealthDatabase */
        HealthDatabase: {
            engine: "sqlite" | "postgres";
            /** @description Whether a trivial query answered within a second (checked at most once a second) */
            reachable: boolean;
        };
        /** HealthNode */
        HealthNode: {
            /** @description This node (process) among several serving the same database */
            id: string;
            state: "serving" | "draining";
        };
        /**
         * HeldRequest
         * @description The exact request that runs if approved
         */
        HeldRequest: {
            method: string;
            /** @description The path and query exactly as the request will run (a `token` query parameter removed) */
            path: string;
            /** @description `held`: every field is listed; `none`: the request has no body; `dropped`: decided or expired, its body (if it had one) is no longer kept */
            bodyStatus: "held" | "none" | "dropped";
            /** @description Every field of the JSON body, flattened, in the order sent */
            fields: components["schemas"]["HeldRequestField"][];
            /** @description Fields left out past the first 1,000 (0 nearly always) */
            omittedFields: number;
        };
        /** HeldRequestField */
        HeldRequestField: {
            /** @description The field in the JSON body: `to`, `params.query.page`, `headers["x-trace"]`, `list[0]` */
            name: string;
            /** @description The JSON type; `object` and `array` appear only empty (their members are fields of their own) */
            type: "string" | "number" | "boolean" | "null" | "object" | "array";
            /** @description The value: whole, or its first characters when `truncated`; null for a secret, null, and empty objects and arrays */
            value: string | number | boolean | null;
            /** @description The value is a preview: the first characters of a longer string (`length` says how long) */
            truncated: boolean;
            /** @description Characters of a string (members of an empty object or array: 0) */
            length: number | null;
            /** @description File content: the file's size in bytes once decoded (base64 or UTF-8) */
            bytes: number | null;
            /** @description A secret (a vault token, a password): never shown, only its length */
            secret: boolean;
        };
        /**
         * Identity
         * @description The owner's public profile with any further fields the owner keeps; sections the token may not read are absent
         */
        Identity: {
            name?: string;
            bio?: string;
            location?: string;
            /** @description URLs or `{ label, url }` objects */
            links?: unknown[];
            /** @description Work: role, company, skills… (scope `professional` or `identity`) */
            professional?: {
                [key: string]: unknown;
            };
            /** @description When and how the owner can be reached (scope `availability` or `identity`) */
            availability?: {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /**
         * IdentityPatch
         * @description A JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, arrays and other values replace. The stored document is at most 64 KiB of JSON (413 beyond) and nests at most 32 levels
         */
        IdentityPatch: {
            name?: string | null;
            bio?: string | null;
            location?: string | null;
            links?: unknown[] | null;
            professional?: {
                [key: string]: unknown;
            } | null;
            availability?: {
                [key: string]: unknown;
            } | null;
        } & {
            [key: string]: unknown;
        };
        /** IdentityResponse */
        IdentityResponse: {
            data: components["schemas"]["Identity"];
        };
        /**
         * IdentitySection
         * @description One section of the identity
         */
        IdentitySection: {
            [key: string]: unknown;
        };
        /** IdentitySectionResponse */
        IdentitySectionResponse: {
            data: components["schemas"]["IdentitySection"];
        };
        /** ImportReport */
        ImportReport: {
            dryRun: boolean;
            format: {
                name: string;
                version: number;
                createdAt: string;
            };
            tables: {
                [key: string]: {
                    added: number;
                    /** @description Already in the account, identical: skipped */
                    unchanged: number;
                    /** @description Already in the account with other content, or taking a name in use: not applied */
                    conflicts: number;
                    /** @description Left out: records kept for reference only (tokens, devices), secrets not in the archive, or pointing at a record left out */
                    skipped: number;
                    /** @description Added with a new id, as another account on this server holds theirs */
                    renumbered: number;
                };
            };
            /** @description The first 200 conflicts and skipped records, each with why */
            issues: {
                table: string;
                id: string;
                outcome: "conflict" | "skipped";
                reason: string;
            }[];
            notes: string[];
        };
        /** ImportReportResponse */
        ImportReportResponse: {
            data: components["schemas"]["ImportReport"];
        };
        /** ImportedMemoryEntry */
        ImportedMemoryEntry: {
            /** @description Freeform markdown */
            content: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
            kind: "fact" | "preference" | "event" | "instruction" | "note";
            /** @description Normalized tags (lower case, spaces as dashes) */
            tags: string[];
            pinned: boolean;
            /** @description From when the entry holds; null: always has */
            validFrom: string | null;
            /** @description Until when the entry holds; null: still does */
            validUntil: string | null;
            source: components["schemas"]["MemorySource"] | null;
            author: components["schemas"]["MemoryAuthor"];
            /** @description Who changed the entry last; null while nobody has */
            editedBy: components["schemas"]["MemoryAuthor"] | null;
            /** @description The entries this one replaced (they are kept, marked superseded by it) */
            supersedes: string[];
            /** @description The entry that replaced this one; null while it is current */
            supersededBy: string | null;
            /** @description When it was replaced */
            supersededAt: string | null;
            /** @description How many times a writer stored this entry: 1 when only its author did; each write of the same text (or, with vectors, the same meaning) that was answered with duplicateOf adds one */
            seenCount: number;
            /** @description When a writer last stored it again (a write answered with duplicateOf); null while only its author has */
            lastSeenAt: string | null;
            /** @description Who stored it again last, as the server recorded them; null while only its author has */
            lastSeenBy: components["schemas"]["MemoryAuthor"] | null;
            /** @description The stored entry's id; null in a dry run, which stores nothing */
            id: string | null;
        };
        /** IssuedToken */
        IssuedToken: {
            id: string;
            name: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
            /** @description Master and session tokens hold every scope */
            scopes: string[];
            /** @description The tags the token's memory is limited to: it sees and writes only entries carrying one of them; null: all of the owner's memory */
            memoryTags: string[] | null;
            /** @description The prefix and last four characters, to recognise the token; never the secret */
            hint: string;
            status: "active" | "revoked" | "expired";
            handshakeId: string | null;
            /** @description For an `oauth` token: the client it was issued to through the authorization server (its registered id or metadata URL) */
            clientId: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            expiresAt: string | null;
            /** @description Precise to the minute */
            lastUsedAt: string | null;
            revokedAt: string | null;
            /** @description The secret. Shown this once: store it now */
            token: string;
        };
        /** IssuedTokenResponse */
        IssuedTokenResponse: {
            data: components["schemas"]["IssuedToken"];
        };
        /**
         * JsonRpcMessage
         * @description A JSON-RPC 2.0 request, notification or response of the Model Context Protocol
         */
        JsonRpcMessage: {
            /** @enum {string} */
            jsonrpc: "2.0";
        } & {
            [key: string]: unknown;
        };
        /** KBDocument */
        KBDocument: {
            id: string;
            title: string;
            content: string;
            source: string;
            /** @description The type of the file the text was extracted from; text/markdown for text sent as JSON */
            mimeType: string | null;
            /** @description Size of the stored text in bytes (UTF-8) */
            sizeBytes: number;
            /** @description Size in bytes of the uploaded file the text was read from; null for text sent as JSON (and for uploads stored before it was kept) */
            fileBytes: number | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** KBDocumentDeleted */
        KBDocumentDeleted: {
            id: string;
            deleted: boolean;
        };
        /** KBDocumentDeletedResponse */
        KBDocumentDeletedResponse: {
            data: components["schemas"]["KBDocumentDeleted"];
        };
        /** KBDocumentResponse */
        KBDocumentResponse: {
            data: components["schemas"]["KBDocument"];
        };
        /** KBDocumentSummary */
        KBDocumentSummary: {
            id: string;
            title: string;
            source: string;
            /** @description The type of the file the text was extracted from; text/markdown for text sent as JSON */
            mimeType: string | null;
            /** @description Size of the stored text in bytes (UTF-8) */
            sizeBytes: number;
            /** @description Size in bytes of the uploaded file the text was read from; null for text sent as JSON (and for uploads stored before it was kept) */
            fileBytes: number | null;
            /** @description About 200 characters: the start of the text, or, with `q`, around the first matching word */
            excerpt: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description Only with `q`: relevance, higher is better */
            rank?: number;
        };
        /** KBDocumentSummaryPage */
        KBDocumentSummaryPage: {
            data: components["schemas"]["KBDocumentSummary"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** KBPassageHits */
        KBPassageHits: components["schemas"]["SearchHit"][];
        /** KBPassageHitsResponse */
        KBPassageHitsResponse: {
            data: components["schemas"]["KBPassageHits"];
        };
        /** KBUpsertResult */
        KBUpsertResult: {
            ok: boolean;
            action: "created" | "updated";
            document: {
                id: string;
                title: string;
            };
        };
        /** LoggedOut */
        LoggedOut: {
            success: boolean;
            tokenId: string;
        };
        /** LoggedOutResponse */
        LoggedOutResponse: {
            data: components["schemas"]["LoggedOut"];
        };
        /** LoginFailedData */
        LoginFailedData: {
            userId: string;
            /** @description Failed password attempts in a row from this address on the account */
            consecutiveFailures: number;
            /** @description `address`: one address now waits between attempts; `account`: several addresses guessing together slowed every unfamiliar address down */
            slowdown: "address" | "account";
            /** @description The client address of the attempt that started the slowdown */
            ip: string | null;
        };
        /** MailMessageList */
        MailMessageList: {
            success: boolean;
            messages: components["schemas"]["MailMessageSummary"][];
            nextPageToken: string | null;
        };
        /** MailMessageResponse */
        MailMessageResponse: {
            success: boolean;
            message: {
                id: string;
                subject: string;
                from: string;
                to: string;
                /** @description When Gmail received the message, ISO 8601 UTC */
                date: string;
                snippet: string;
                /** @description The text of the message: the text/plain part, or the HTML part turned into text */
                body: string;
                isUnread: boolean;
            };
        };
        /** MailMessageSummary */
        MailMessageSummary: {
            id: string;
            threadId: string;
            subject: string;
            from: string;
            to: string;
            /** @description When Gmail received the message, ISO 8601 UTC */
            date: string;
            snippet: string;
            isUnread: boolean;
        };
        /** MailSendResult */
        MailSendResult: {
            success: boolean;
            messageId: string;
            threadId: string;
        };
        /** MailTrashResult */
        MailTrashResult: {
            success: boolean;
            messageId: string;
            trashed: boolean;
        };
        /** MarketplaceInstallation */
        MarketplaceInstallation: {
            /** @description What the listing offers: one of the publisher's skills or personas */
            type: "skill" | "persona";
            /** @description The new copy: a skill id (integer) or a persona id (string) */
            id: number | string;
        };
        /** MarketplaceInstallationResponse */
        MarketplaceInstallationResponse: {
            data: components["schemas"]["MarketplaceInstallation"];
        };
        /** MarketplaceListing */
        MarketplaceListing: {
            id: string;
            /** @description What the listing offers: one of the publisher's skills or personas */
            type: "skill" | "persona";
            /** @description The publisher's original (skill id integer, persona id string); it may since have changed or been deleted */
            refId: number | string;
            title: string;
            description: string;
            /** @description Always 0: listings are free and installing never charges */
            price: number;
            /** @description The mean of the ratings (1 to 5), rounded to two decimals; null while nobody has rated */
            ratingAverage: number | null;
            ratingCount: number;
            /** @description How many copies have been installed from this listing */
            installs: number;
            /** @description The publisher's user id */
            ownerId: string;
            /**
             * Format: date-time
             * @description When the published content was taken from the original (publish, or a refresh)
             */
            snapshotAt: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description What an install copies, exactly as published: later edits to the original do not change it */
            snapshot: components["schemas"]["SkillSnapshot"] | components["schemas"]["PersonaSnapshot"];
        };
        /** MarketplaceListingResponse */
        MarketplaceListingResponse: {
            data: components["schemas"]["MarketplaceListing"];
        };
        /** MarketplaceListingSummary */
        MarketplaceListingSummary: {
            id: string;
            /** @description What the listing offers: one of the publisher's skills or personas */
            type: "skill" | "persona";
            /** @description The publisher's original (skill id integer, persona id string); it may since have changed or been deleted */
            refId: number | string;
            title: string;
            description: string;
            /** @description Always 0: listings are free and installing never charges */
            price: number;
            /** @description The mean of the ratings (1 to 5), rounded to two decimals; null while nobody has rated */
            ratingAverage: number | null;
            ratingCount: number;
            /** @description How many copies have been installed from this listing */
            installs: number;
            /** @description The publisher's user id */
            ownerId: string;
            /**
             * Format: date-time
             * @description When the published content was taken from the original (publish, or a refresh)
             */
            snapshotAt: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** MarketplaceListingSummaryPage */
        MarketplaceListingSummaryPage: {
            data: components["schemas"]["MarketplaceListingSummary"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** MarketplaceRating */
        MarketplaceRating: {
            userId: string;
            rating: number;
            review: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** MarketplaceRatingPage */
        MarketplaceRatingPage: {
            data: components["schemas"]["MarketplaceRating"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /**
         * MemoryAuthor
         * @description Who wrote, as the server recorded it: never taken from the request body. token is null for entries stored before authors were recorded
         */
        MemoryAuthor: {
            /** @description How the write reached Hearth: api (a bearer token), mcp (a tool call), console (the owner, signed in), import; unknown for entries stored before this was recorded */
            channel: "api" | "mcp" | "console" | "import" | "unknown";
            token: components["schemas"]["MemoryAuthorToken"] | null;
            agent: components["schemas"]["MemoryAuthorAgent"] | null;
        };
        /** MemoryAuthorAgent */
        MemoryAuthorAgent: {
            kind: "oauth_client" | "handshake";
            /** @description The OAuth client's id, or the handshake's */
            id: string;
            /** @description The OAuth client's registered name, or the id the handshake's agent gave itself */
            name: string;
        };
        /**
         * MemoryAuthorSummary
         * @description One author of memory entries, named as its newest entry records it (the token may be renamed, revoked or deleted since); token null: entries stored before authors were recorded
         */
        MemoryAuthorSummary: {
            token: components["schemas"]["MemoryAuthorToken"] | null;
            agent: components["schemas"]["MemoryAuthorAgent"] | null;
            /** @description How many entries it wrote that are stored (superseded and expired too) */
            count: number;
            /** Format: date-time */
            lastWrittenAt: string;
        };
        /** MemoryAuthorSummaryList */
        MemoryAuthorSummaryList: {
            data: components["schemas"]["MemoryAuthorSummary"][];
        };
        /** MemoryAuthorToken */
        MemoryAuthorToken: {
            id: string;
            /** @description The token's name when it wrote (renaming it later changes nothing here) */
            name: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
        };
        /** MemoryCleared */
        MemoryCleared: {
            success: boolean;
            /** @description How many entries were deleted */
            deleted: number;
        };
        /** MemoryContextEntry */
        MemoryContextEntry: {
            id: string;
            /** @description Freeform markdown */
            content: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
            kind: "fact" | "preference" | "event" | "instruction" | "note";
            /** @description Normalized tags (lower case, spaces as dashes) */
            tags: string[];
            pinned: boolean;
            /** @description From when the entry holds; null: always has */
            validFrom: string | null;
            /** @description Until when the entry holds; null: still does */
            validUntil: string | null;
            source: components["schemas"]["MemorySource"] | null;
            author: components["schemas"]["MemoryAuthor"];
            /** @description Who changed the entry last; null while nobody has */
            editedBy: components["schemas"]["MemoryAuthor"] | null;
            /** @description The entries this one replaced (they are kept, marked superseded by it) */
            supersedes: string[];
            /** @description The entry that replaced this one; null while it is current */
            supersededBy: string | null;
            /** @description When it was replaced */
            supersededAt: string | null;
        };
        /** MemoryDuplicate */
        MemoryDuplicate: {
            data: components["schemas"]["MemoryEntry"];
            /** @description The id of the current entry that already says this (data): nothing was added, the attempt is counted on it (seenCount, lastSeenAt, lastSeenBy) */
            duplicateOf: string;
            /** @description text: the same words once normalized (case, spacing, Unicode forms, trailing punctuation); meaning: near-identical meaning by the stored vectors */
            matchedBy: "text" | "meaning";
        };
        /** MemoryEntry */
        MemoryEntry: {
            id: string;
            /** @description Freeform markdown */
            content: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
            kind: "fact" | "preference" | "event" | "instruction" | "note";
            /** @description Normalized tags (lower case, spaces as dashes) */
            tags: string[];
            pinned: boolean;
            /** @description From when the entry holds; null: always has */
            validFrom: string | null;
            /** @description Until when the entry holds; null: still does */
            validUntil: string | null;
            source: components["schemas"]["MemorySource"] | null;
            author: components["schemas"]["MemoryAuthor"];
            /** @description Who changed the entry last; null while nobody has */
            editedBy: components["schemas"]["MemoryAuthor"] | null;
            /** @description The entries this one replaced (they are kept, marked superseded by it) */
            supersedes: string[];
            /** @description The entry that replaced this one; null while it is current */
            supersededBy: string | null;
            /** @description When it was replaced */
            supersededAt: string | null;
            /** @description How many times a writer stored this entry: 1 when only its author did; each write of the same text (or, with vectors, the same meaning) that was answered with duplicateOf adds one */
            seenCount: number;
            /** @description When a writer last stored it again (a write answered with duplicateOf); null while only its author has */
            lastSeenAt: string | null;
            /** @description Who stored it again last, as the server recorded them; null while only its author has */
            lastSeenBy: components["schemas"]["MemoryAuthor"] | null;
        };
        /** MemoryEntryList */
        MemoryEntryList: {
            data: components["schemas"]["MemoryEntry"][];
        };
        /** MemoryEntryPage */
        MemoryEntryPage: {
            data: components["schemas"]["MemoryEntry"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** MemoryEntryResponse */
        MemoryEntryResponse: {
            data: components["schemas"]["MemoryEntry"];
        };
        /** MemoryForgotten */
        MemoryForgotten: {
            /** @description The token whose entries were forgotten */
            author: string;
            /** @description true when nothing was changed: the counts say what would be */
            dryRun: boolean;
            /** @description How many entries the token wrote (all of them, superseded and expired too) */
            count: number;
            /** @description How many entries were deleted (0 on a dry run) */
            deleted: number;
            /** @description How many entries written by others, which one of the forgotten entries had replaced, are current again (or would be) because nothing kept replaced them */
            restored: number;
        };
        /** MemoryForgottenResponse */
        MemoryForgottenResponse: {
            data: components["schemas"]["MemoryForgotten"];
        };
        /** MemoryImport */
        MemoryImport: {
            /** @description mem0 (its JSON export: get_all's results), mcp-memory (the MCP reference memory server's memory.json, JSON Lines of entities and relations), letta (an agent file, .af), markdown (an Obsidian vault or basic-memory folder as a .zip, or one .md note), text (lines or bullets pasted from ChatGPT's or Claude's "what do you remember about me") */
            format: "mem0" | "mcp-memory" | "letta" | "markdown" | "text";
            dryRun: boolean;
            counts: {
                /** @description Entries added (or, in a dry run, that would be) */
                entries: number;
                /** @description Lines, records or files left out, duplicates included */
                skipped: number;
                /** @description Entries that repeat an earlier one of the same import (imported once) */
                duplicates: number;
                /** @description Notes or records longer than an entry holds (64 KiB), split into several entries */
                split: number;
            };
            /** @description The entries, in the order written (oldest first); the first 500 when there are more (see entriesTruncated) */
            entries: components["schemas"]["ImportedMemoryEntry"][];
            entriesTruncated: boolean;
            /** @description What was left out and why; the first 200 when there are more (counts.skipped has them all) */
            skipped: {
                /** @description The line, record or file: "line 4", "memory 2", "notes/tea.md" */
                where: string;
                reason: string;
            }[];
        };
        /** MemoryImportResponse */
        MemoryImportResponse: {
            data: components["schemas"]["MemoryImport"];
        };
        /**
         * MemorySource
         * @description What the writer says the entry comes from: the writer's word, kept as given (the server records the author itself)
         */
        MemorySource: {
            /** @description conversation, mail, document, url or other */
            kind: "conversation" | "mail" | "document" | "url" | "other";
            /** @description Where it comes from: a URL, a message or document id, a conversation id (at most 2048 characters) */
            ref?: string;
            /** @description The words the entry was drawn from (at most 2000 characters) */
            quote?: string;
        };
        /** OAuthAuthorization */
        OAuthAuthorization: {
            /** @description Hearth's connect page: the owner opens it in a browser, signs in with the account password, and goes on to the provider's consent page. It works once, for 10 minutes, and only in the browser that signed in */
            url: string;
            provider: string;
            /** @description Where the provider sends the browser back; the OAuth client must list it */
            redirectUri: string;
            /** Format: date-time */
            expiresAt: string;
        };
        /** OAuthAuthorizationResponse */
        OAuthAuthorizationResponse: {
            data: components["schemas"]["OAuthAuthorization"];
        };
        /** OAuthDisconnection */
        OAuthDisconnection: {
            provider: string;
            /** @enum {boolean} */
            disconnected: true;
            /** @description Whether the provider confirmed the grant is revoked */
            revoked: boolean;
            /** @description Why revocation at the provider failed; the tokens are deleted from this server all the same */
            revokeError: string | null;
        };
        /** OAuthDisconnectionResponse */
        OAuthDisconnectionResponse: {
            data: components["schemas"]["OAuthDisconnection"];
        };
        /** OAuthError */
        OAuthError: {
            /** @description An OAuth error code: invalid_request, invalid_client, invalid_grant, invalid_target, unsupported_grant_type, invalid_redirect_uri, invalid_client_metadata */
            error: string;
            /** @description What is wrong, in words */
            error_description: string;
        };
        /** OAuthForm */
        OAuthForm: {
            [key: string]: string | string[];
        };
        /** OAuthNeedsReauthData */
        OAuthNeedsReauthData: {
            /** @description The OAuth service whose connection needs the owner to connect it again (`google`) */
            provider: string;
        };
        /** OAuthProviderStatus */
        OAuthProviderStatus: {
            provider: string;
            /** @description Whether the server has client credentials for the provider */
            configured: boolean;
            connected: boolean;
            /** @description `needs_reauth`: the provider refused the stored grant; reconnect with GET /api/v1/oauth/authorize/{service} */
            status: "connected" | "needs_reauth" | "not_connected";
            /** @description The connected account's email address */
            account: string | null;
            /** @description The scopes the provider granted */
            scopes: string[];
            /** @description When the current access token expires (it is refreshed automatically) */
            expiresAt: string | null;
            connectedAt: string | null;
            /** @description Why the connection needs re-authorisation */
            lastError: string | null;
        };
        /** OAuthProviderStatusList */
        OAuthProviderStatusList: {
            data: components["schemas"]["OAuthProviderStatus"][];
        };
        /** OAuthTokenAnswer */
        OAuthTokenAnswer: {
            /** @description A Hearth token of kind oauth; send it as Authorization: Bearer */
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            /** @description Seconds until the access token expires */
            expires_in: number;
            /** @description Used once: each refresh answers a new one. Using a spent one revokes the grant */
            refresh_token: string;
            /** @description The scopes the owner granted, space-separated */
            scope: string;
        };
        /** OpenApiDocument */
        OpenApiDocument: {
            [key: string]: unknown;
        };
        /** PasswordChanged */
        PasswordChanged: {
            success: boolean;
            /** @description How many of the account's other login sessions were ended; the calling session stays */
            sessionsEnded: number;
        };
        /** PasswordChangedResponse */
        PasswordChangedResponse: {
            data: components["schemas"]["PasswordChanged"];
        };
        /** PasswordReset */
        PasswordReset: {
            success: boolean;
            /** @description The email the account signs in with, now with the new password */
            email: string;
            /** @description How many of the account's login sessions were ended (every one) */
            sessionsEnded: number;
        };
        /** PasswordResetResponse */
        PasswordResetResponse: {
            data: components["schemas"]["PasswordReset"];
        };
        /** Persona */
        Persona: {
            id: string;
            name: string;
            description: string;
            soul_content: string;
            /** @description At most one persona of an owner is active at a time */
            active: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** PersonaPage */
        PersonaPage: {
            data: components["schemas"]["Persona"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** PersonaResponse */
        PersonaResponse: {
            data: components["schemas"]["Persona"];
        };
        /** PersonaSnapshot */
        PersonaSnapshot: {
            name: string;
            description: string;
            soul_content: string;
        };
        /** Plan */
        Plan: {
            /** @description Pass as `planId` to checkout */
            id: string;
            name: string;
            /** @description Per interval, in minor units of the currency (cents): 900 is 9.00 */
            price: number;
            /** @description ISO 4217, lowercase (usd) */
            currency: string;
            interval: "month" | "year";
            limits: components["schemas"]["PlanLimits"];
            /** @description Whether checkout sells this plan on this server: a paid plan, with payments configured (STRIPE_SECRET_KEY). Otherwise the administrator sets plans (PUT /api/v1/users/{id}/plan) */
            purchasable: boolean;
        };
        /** PlanChangedData */
        PlanChangedData: {
            planId: string;
            previousPlanId: string;
        };
        /** PlanLimits */
        PlanLimits: {
            /** @description Memory entries stored at once; null means unlimited */
            memoryEntries: number | null;
            /** @description Bytes of knowledge-base document text stored at once; null means unlimited */
            knowledgeBytes: number | null;
            /** @description Vault tokens stored at once; null means unlimited */
            vaultTokens: number | null;
            /** @description Remote PCs (AFP devices) registered at once; null means unlimited */
            devices: number | null;
            /** @description Authenticated API requests per UTC day; null means unlimited */
            apiRequestsPerDay: number | null;
        };
        /** PlanList */
        PlanList: {
            data: components["schemas"]["Plan"][];
        };
        /**
         * Preferences
         * @description A free JSON object
         */
        Preferences: {
            [key: string]: unknown;
        };
        /**
         * PreferencesPatch
         * @description A JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, arrays and other values replace. The stored document is at most 64 KiB of JSON (413 beyond) and nests at most 32 levels
         */
        PreferencesPatch: {
            [key: string]: unknown;
        };
        /** PreferencesResponse */
        PreferencesResponse: {
            data: components["schemas"]["Preferences"];
        };
        /** ProtectedResourceMetadata */
        ProtectedResourceMetadata: {
            /** @description The MCP endpoint: <PUBLIC_BASE_URL>/mcp */
            resource: string;
            authorization_servers: string[];
            scopes_supported: string[];
            bearer_methods_supported: string[];
            resource_name: string;
            resource_documentation: string;
        };
        /** QuickStart */
        QuickStart: {
            title: string;
            important: string;
            /** @description True when this request carried a valid token */
            authenticated: boolean;
            /** @description The base address to use as is; paths already start with /api/v1 */
            canonicalBaseUrl: string;
            urlWarning: string;
            prerequisite: {
                action: string;
                detail: string;
                required: boolean;
            };
            noTokenFlow: {
                description: string;
                steps: components["schemas"]["QuickStartStep"][];
            };
            /** @description The recommended order of calls for an agent session */
            steps: components["schemas"]["QuickStartStep"][];
            /** @description Absolute address of the OpenAPI document */
            fullDocs: string;
            /** @description The same capabilities as MCP tools, for clients that speak the Model Context Protocol */
            mcp: {
                /** @description Absolute address of the MCP endpoint (Streamable HTTP), reached with the same bearer token */
                url: string;
                /** @description When a client should use MCP rather than the HTTP API */
                prefer: string;
            };
        };
        /** QuickStartStep */
        QuickStartStep: {
            step: number;
            action: string;
            detail: string;
            /** @description `METHOD /path`, e.g. `GET /api/v1/memory` */
            endpoint?: string;
            /** @description An example request body */
            body?: {
                [key: string]: unknown;
            };
            /** @description The scope the endpoint needs */
            requiredScope?: string;
            /** @description Skipping this step makes the session fail or misbehave */
            critical?: boolean;
            /** @description Already done by this request (e.g. it carried a valid token) */
            done?: boolean;
        };
        /** RegisteredClient */
        RegisteredClient: {
            client_id: string;
            client_id_issued_at: number;
            /** @description Only for clients that authenticate with a secret; shown this once */
            client_secret?: string;
            /** @description 0: never */
            client_secret_expires_at?: number;
            client_name: string;
            redirect_uris: string[];
            grant_types: string[];
            response_types: string[];
            token_endpoint_auth_method: string;
        };
        /** Registration */
        Registration: {
            user: components["schemas"]["User"];
            /** @description The master token. Shown this once: store it now */
            token: string;
        };
        /** RegistrationResponse */
        RegistrationResponse: {
            data: components["schemas"]["Registration"];
        };
        /** RegistrationStatus */
        RegistrationStatus: {
            /** @description Whether POST /api/v1/auth/register would be accepted now (REGISTRATION=open, or first-user before the first account) */
            open: boolean;
            /** @description Whether any account exists on this server (the first one becomes the administrator) */
            hasAccounts: boolean;
        };
        /** RegistrationStatusResponse */
        RegistrationStatusResponse: {
            data: components["schemas"]["RegistrationStatus"];
        };
        /** RevealedVaultToken */
        RevealedVaultToken: {
            id: string;
            name: string;
            service: string;
            websiteUrl: string;
            /** @description The last four characters (`…abcd`), to recognise the token; never the secret */
            hint: string;
            discoverApi: boolean;
            /** @description What API discovery found; null when not asked for */
            api: components["schemas"]["VaultApiSummary"] | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The decrypted secret */
            token: string;
        };
        /** RevealedVaultTokenResponse */
        RevealedVaultTokenResponse: {
            data: components["schemas"]["RevealedVaultToken"];
        };
        /** ScopeInfo */
        ScopeInfo: {
            name: string;
            description: string;
            /** @description The routes this scope opens */
            grants: string[];
        };
        /** ScopeInfoList */
        ScopeInfoList: {
            data: components["schemas"]["ScopeInfo"][];
        };
        /** SearchHit */
        SearchHit: {
            /** @description The memory entry, passage, or skill id */
            id: string;
            type: "memory" | "knowledge" | "skills";
            /** @description A memory entry's first line, a document's title, or a skill's name */
            title: string;
            /** @description The matching text: the entry, the passage, or the skill description (bounded) */
            text: string;
            /** @description Higher is better; comparable within one answer */
            score: number;
            /** @description Why it matched: the query shares words with it, is close in meaning, or both */
            matched: "words" | "meaning" | "both";
            /** @description Spans of text that matched words of the query, [start, end) */
            marks: number[][];
            /** @description For a knowledge passage: its document and where the passage lies in its text */
            document?: {
                id: string;
                title: string;
                /** @description The headings the passage sits under, outermost first */
                headingPath: string[];
                /** @description The passage's offset in the document's text (UTF-16 code units) */
                start: number;
                /** @description The end of the passage in the document's text, exclusive */
                end: number;
            };
            /** @description For a skill: its slug (GET /api/v1/skills/{slug}) */
            slug?: string;
        };
        /** SearchResults */
        SearchResults: {
            /** @description The best hits of every kind searched, best first */
            data: components["schemas"]["SearchHit"][];
            /** @description The kinds searched (those asked for, or every kind this token may read) */
            types: ("memory" | "knowledge" | "skills")[];
        };
        /** SearchStatus */
        SearchStatus: {
            embedder: components["schemas"]["Embedder"];
            /** @description The owner's items still lacking a vector of the current model (re-embedding after a model change counts here) */
            pending: number;
            /** @description The owner's items holding a vector of the current model */
            indexed: number;
            /** @description The last failure of the embedder or the indexer; search uses words only meanwhile */
            lastError: string | null;
        };
        /** SearchStatusResponse */
        SearchStatusResponse: {
            data: components["schemas"]["SearchStatus"];
        };
        /** Service */
        Service: {
            /** @description The name to use in /services/{service}/… */
            id: string;
            name: string;
            description: string;
            category: string;
            /** @description catalogue: built into Hearth; connector: defined by the owner (POST /connectors); discovered: found on the website of a vault token stored with discoverApi */
            source: "catalogue" | "connector" | "discovered";
            /** @description How the service's credential travels */
            authKind: "oauth" | "bearer" | "header" | "query" | "none";
            /** @description Whether the owner has a credential for it (an OAuth connection or a vault token), or it needs none */
            connected: boolean;
            /** @description Named methods plus the generic `request` */
            methodsCount: number;
        };
        /** ServiceCallResult */
        ServiceCallResult: {
            /** @description The service's HTTP status; 4xx and 5xx are the service's answer, not Hearth's */
            status: number;
            /** @description Safe response headers (never Set-Cookie or credentials); redirects carry location */
            headers: {
                [key: string]: string;
            };
            /** @description Parsed JSON, text, base64 for binary, or null when empty (see encoding) */
            body: unknown;
            encoding: "json" | "text" | "base64" | "empty";
        };
        /** ServiceCallResultResponse */
        ServiceCallResultResponse: {
            data: components["schemas"]["ServiceCallResult"];
        };
        /** ServiceCategory */
        ServiceCategory: {
            id: string;
            name: string;
            description: string;
            /** @description How many of the owner's services are in it */
            count: number;
        };
        /** ServiceCategoryList */
        ServiceCategoryList: {
            data: components["schemas"]["ServiceCategory"][];
        };
        /** ServiceDetail */
        ServiceDetail: {
            /** @description The name to use in /services/{service}/… */
            id: string;
            name: string;
            description: string;
            category: string;
            /** @description catalogue: built into Hearth; connector: defined by the owner (POST /connectors); discovered: found on the website of a vault token stored with discoverApi */
            source: "catalogue" | "connector" | "discovered";
            /** @description How the service's credential travels */
            authKind: "oauth" | "bearer" | "header" | "query" | "none";
            /** @description Whether the owner has a credential for it (an OAuth connection or a vault token), or it needs none */
            connected: boolean;
            /** @description Named methods plus the generic `request` */
            methodsCount: number;
            baseUrl: string;
            docsUrl: string | null;
            auth: {
                /** @description How the service's credential travels */
                kind: "oauth" | "bearer" | "header" | "query" | "none";
                /** @description The OAuth provider (kind oauth) */
                provider?: string;
                /** @description The header the credential occupies (kind header) */
                headerName?: string;
                /** @description The query parameter the credential occupies (kind query) */
                param?: string;
            };
            connect: {
                /** @description How the owner provides the credential */
                how: string;
                oauthAuthorize: string | null;
                /** @description The `service` to store a vault token under */
                vaultService: string | null;
            };
            /** @description rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy */
            apiStyle: "rest" | "rpc";
            /** @description For an rpc service, the methods that only read (a GET of another method needs services:write); empty for rest */
            readMethods: string[];
            methods: {
                /** @description The `method` of POST /services/{service}/execute */
                name: string;
                description: string;
                /** @description Null for `request`, whose params name it */
                httpMethod: ("GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS") | null;
                /** @description Relative to the base address, with {placeholders}; null for `request` */
                path: string | null;
            }[];
        };
        /** ServiceDetailResponse */
        ServiceDetailResponse: {
            data: components["schemas"]["ServiceDetail"];
        };
        /** ServiceList */
        ServiceList: {
            data: components["schemas"]["Service"][];
        };
        /** ServiceMethod */
        ServiceMethod: {
            /** @description The `method` of POST /services/{service}/execute */
            name: string;
            description: string;
            /** @description Null for `request`, whose params name it */
            httpMethod: ("GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS") | null;
            /** @description Relative to the base address, with {placeholders}; null for `request` */
            path: string | null;
            /** @description JSON Schema of the params object of execute */
            params: unknown;
        };
        /** ServiceMethodList */
        ServiceMethodList: {
            data: components["schemas"]["ServiceMethod"][];
        };
        /** Session */
        Session: {
            user: components["schemas"]["User"];
            /** @description A session token with every scope and every owner right except vault reveal */
            token: string;
            /** Format: date-time */
            expiresAt: string;
        };
        /** SessionResponse */
        SessionResponse: {
            data: components["schemas"]["Session"];
        };
        /** Skill */
        Skill: {
            /** @description The numeric skill id */
            id: number;
            /** @description Equals the name; matched case-insensitively */
            slug: string;
            name: string;
            description: string;
            category: string;
            /** @description The sanitized SKILL.md */
            scriptContent: string;
            active: boolean;
            /** @description Where the skill came from; other fields depend on `type` */
            origin: {
                /** @description `created` for skills made here, `installed` for skills installed from the marketplace */
                type: string;
            } & {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** SkillContent */
        SkillContent: {
            /** @description The numeric skill id */
            id: number;
            slug: string;
            name: string;
            /** @description The SKILL.md */
            content: string;
        };
        /** SkillContentResponse */
        SkillContentResponse: {
            data: components["schemas"]["SkillContent"];
        };
        /** SkillDeleted */
        SkillDeleted: {
            /** @description The numeric skill id */
            id: number;
            /** @enum {boolean} */
            deleted: true;
        };
        /** SkillDeletedResponse */
        SkillDeletedResponse: {
            data: components["schemas"]["SkillDeleted"];
        };
        /** SkillList */
        SkillList: {
            data: components["schemas"]["Skill"][];
        };
        /** SkillResponse */
        SkillResponse: {
            data: components["schemas"]["Skill"];
        };
        /** SkillSnapshot */
        SkillSnapshot: {
            /** @description The skill name, which becomes the installed copy's name and slug */
            name: string;
            description: string;
            category: string;
            /** @description The SKILL.md */
            scriptContent: string;
        };
        /** SkillSuggestion */
        SkillSuggestion: {
            /** @description The numeric skill id */
            id: number;
            slug: string;
            name: string;
            description: string;
            category: string;
        };
        /** SkillSuggestionList */
        SkillSuggestionList: {
            data: components["schemas"]["SkillSuggestion"][];
        };
        /** SkillSummary */
        SkillSummary: {
            /** @description The numeric skill id */
            id: number;
            /** @description Equals the name; matched case-insensitively */
            slug: string;
            name: string;
            description: string;
            category: string;
            active: boolean;
            /** @description Where the skill came from; other fields depend on `type` */
            origin: {
                /** @description `created` for skills made here, `installed` for skills installed from the marketplace */
                type: string;
            } & {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** SkillSummaryPage */
        SkillSummaryPage: {
            data: components["schemas"]["SkillSummary"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** Token */
        Token: {
            id: string;
            name: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
            /** @description Master and session tokens hold every scope */
            scopes: string[];
            /** @description The tags the token's memory is limited to: it sees and writes only entries carrying one of them; null: all of the owner's memory */
            memoryTags: string[] | null;
            /** @description The prefix and last four characters, to recognise the token; never the secret */
            hint: string;
            status: "active" | "revoked" | "expired";
            handshakeId: string | null;
            /** @description For an `oauth` token: the client it was issued to through the authorization server (its registered id or metadata URL) */
            clientId: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            expiresAt: string | null;
            /** @description Precise to the minute */
            lastUsedAt: string | null;
            revokedAt: string | null;
        };
        /** TokenCapabilities */
        TokenCapabilities: {
            tokenId: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
            /** @description The scopes this token holds */
            scopes: string[];
            /** @description The tags this token's memory is limited to: it sees and writes only entries carrying one of them; null: all of the owner's memory */
            memoryTags: string[] | null;
            /** @description Master and session tokens: token management, handshakes, the audit log */
            ownerRights: boolean;
            /** @description Only the master token may reveal vault tokens */
            master: boolean;
            /** @description The administrator's master or session token: user management */
            admin: boolean;
            /** @description Every non-public route this token may call */
            endpoints: string[];
        };
        /** TokenCapabilitiesResponse */
        TokenCapabilitiesResponse: {
            data: components["schemas"]["TokenCapabilities"];
        };
        /** TokenCreatedData */
        TokenCreatedData: {
            tokenId: string;
            name: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
            scopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
        };
        /** TokenPage */
        TokenPage: {
            data: components["schemas"]["Token"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** TokenPolicy */
        TokenPolicy: {
            tokenId: string;
            /** @description The rule for each action class (devices.exec, mail.send, …): allow, ask or deny */
            rules: {
                /** @description Run a command on a remote PC */
                "devices.exec": "allow" | "ask" | "deny";
                /** @description Write a file or make a folder on a remote PC */
                "devices.write": "allow" | "ask" | "deny";
                /** @description Delete a file or folder on a remote PC */
                "devices.delete": "allow" | "ask" | "deny";
                /** @description Send mail from the connected mailbox */
                "mail.send": "allow" | "ask" | "deny";
                /** @description Move a message of the connected mailbox to the trash */
                "mail.trash": "allow" | "ask" | "deny";
                /** @description Upload a file to the connected file storage */
                "files.upload": "allow" | "ask" | "deny";
                /** @description Delete a file of the connected file storage */
                "files.delete": "allow" | "ask" | "deny";
                /** @description Call a service in a way that may change something (execute, proxy and pass-through calls other than reads: any method but GET or HEAD, and for RPC-style services any method not declared a read), create, change or delete connectors, and disconnect a connected account */
                "services.write": "allow" | "ask" | "deny";
                /** @description Add or change memory entries */
                "memory.write": "allow" | "ask" | "deny";
                /** @description Delete memory entries */
                "memory.delete": "allow" | "ask" | "deny";
                /** @description Add, upload, change or overwrite (upsert) knowledge-base documents */
                "knowledge.write": "allow" | "ask" | "deny";
                /** @description Delete knowledge-base documents */
                "knowledge.delete": "allow" | "ask" | "deny";
                /** @description Change the identity or the preferences */
                "identity.write": "allow" | "ask" | "deny";
                /** @description Create, change, activate or deactivate personas, and attach or detach their documents and skills */
                "personas.write": "allow" | "ask" | "deny";
                /** @description Delete personas */
                "personas.delete": "allow" | "ask" | "deny";
                /** @description Create, change, activate or deactivate skills, and attach or detach their documents */
                "skills.write": "allow" | "ask" | "deny";
                /** @description Delete skills */
                "skills.delete": "allow" | "ask" | "deny";
                /** @description Delete chat conversations */
                "chat.delete": "allow" | "ask" | "deny";
                /** @description Publish, change or delete marketplace listings (publishing makes the owner's content public), rate them, and install them into the owner's skills and personas */
                "marketplace.write": "allow" | "ask" | "deny";
                /** @description Store or delete vault tokens */
                "vault.write": "allow" | "ask" | "deny";
            };
            updatedAt: string | null;
            /** @description The action classes this token's scopes let it meet; a rule for any other cannot apply to it (the console shows these) */
            reachable: ("devices.exec" | "devices.write" | "devices.delete" | "mail.send" | "mail.trash" | "files.upload" | "files.delete" | "services.write" | "memory.write" | "memory.delete" | "knowledge.write" | "knowledge.delete" | "identity.write" | "personas.write" | "personas.delete" | "skills.write" | "skills.delete" | "chat.delete" | "marketplace.write" | "vault.write")[];
        };
        /** TokenPolicyResponse */
        TokenPolicyResponse: {
            data: components["schemas"]["TokenPolicy"];
        };
        /** TokenResponse */
        TokenResponse: {
            data: components["schemas"]["Token"];
        };
        /** TokenRevokedData */
        TokenRevokedData: {
            tokenId: string;
            kind: "master" | "session" | "api" | "handshake" | "oauth";
        };
        /** Usage */
        Usage: {
            /** @description The owner's plan (GET /api/v1/billing/plans lists them all) */
            plan: {
                id: string;
                name: string;
            };
            /** @description Whether plan limits apply to this owner: false when the server runs without plan limits, and for the administrator */
            limitsApply: boolean;
            usage: {
                memoryEntries: {
                    /** @description Memory entries stored now */
                    used: number;
                    /** @description The plan's limit; null when nothing limits it (plan limits off on this server, the administrator, or an unlimited plan) */
                    limit: number | null;
                };
                knowledgeBytes: {
                    /** @description Bytes of knowledge-base document text stored now */
                    used: number;
                    /** @description The plan's limit; null when nothing limits it (plan limits off on this server, the administrator, or an unlimited plan) */
                    limit: number | null;
                };
                vaultTokens: {
                    /** @description Vault tokens stored now */
                    used: number;
                    /** @description The plan's limit; null when nothing limits it (plan limits off on this server, the administrator, or an unlimited plan) */
                    limit: number | null;
                };
                devices: {
                    /** @description Remote PCs registered now */
                    used: number;
                    /** @description The plan's limit; null when nothing limits it (plan limits off on this server, the administrator, or an unlimited plan) */
                    limit: number | null;
                };
                apiRequestsPerDay: {
                    /** @description Authenticated requests counted today (UTC) by every node of the server (with several nodes, those of the last fraction of a second may be missing; billing routes, this one among them, are not counted); null when requests are not counted at all (limitsApply is false) */
                    used: number | null;
                    /** @description The plan's daily limit; null when nothing limits it */
                    limit: number | null;
                    /**
                     * Format: date-time
                     * @description When the count starts again: the next UTC midnight
                     */
                    resetsAt: string;
                };
            };
        };
        /** UsageResponse */
        UsageResponse: {
            data: components["schemas"]["Usage"];
        };
        /** User */
        User: {
            id: string;
            email: string;
            name: string | null;
            /** @description The first account is the administrator */
            role: "admin" | "user";
            planId: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description Whether the administrator disabled the account: it cannot sign in, and none of its tokens works, until enabled again */
            disabled: boolean;
            /** @description When the administrator disabled the account; null while it is enabled */
            disabledAt: string | null;
        };
        /** UserPage */
        UserPage: {
            data: components["schemas"]["User"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** UserResponse */
        UserResponse: {
            data: components["schemas"]["User"];
        };
        /** VaultApiSummary */
        VaultApiSummary: {
            /** @description found: an API description; none: the site publishes nothing for machines; failed: discovery could not run (see error) */
            status: "found" | "none" | "failed";
            /** Format: date-time */
            discoveredAt: string;
            error?: string;
            title?: string | null;
            description?: string | null;
            baseUrl?: string;
            /** @description The document's server, not used: it is not on the website's site */
            baseUrlRejected?: string;
            documents?: {
                kind: "openapi" | "llms" | "ai-plugin";
                url: string;
            }[];
            authSchemes?: {
                name: string;
                /** @description OpenAPI 3 terms: http, apiKey, oauth2, openIdConnect, mutualTLS */
                type: string;
                /** @description For http: bearer, basic, … */
                scheme?: string;
                /** @description For apiKey: header, query or cookie */
                in?: string;
                /** @description For apiKey: the header, query parameter or cookie name */
                paramName?: string;
            }[];
            operationCount?: number;
            /** @description As stored with the token (rest unless it said rpc). rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy */
            apiStyle: "rest" | "rpc";
            /** @description The read methods of an rpc API, as stored with the token; empty for rest */
            readMethods: string[];
        };
        /** VaultToken */
        VaultToken: {
            id: string;
            name: string;
            service: string;
            websiteUrl: string;
            /** @description The last four characters (`…abcd`), to recognise the token; never the secret */
            hint: string;
            discoverApi: boolean;
            /** @description What API discovery found; null when not asked for */
            api: components["schemas"]["VaultApiSummary"] | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** VaultTokenCreateRequest */
        VaultTokenCreateRequest: {
            /** @description A name to recognise the token by */
            name: string;
            /** @description The service the token is for (`github`, `openai`); matched case-insensitively. Letters, digits, space, `.`, `_`, `-` */
            service: string;
            /** @description The secret to store. It is encrypted and never shown again except by reveal */
            token: string;
            /**
             * Format: uri
             * @description An http(s) address, e.g. https://api.example.com
             */
            websiteUrl: string;
            /**
             * @description Discover the site's API (OpenAPI, llms.txt, AI plugin manifest) and offer it as a callable service that uses this token
             * @default false
             */
            discoverApi?: boolean;
            /** @description Added to the specification's fields, with discoverApi only: how the discovered API takes its calls. rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy. To change it later, store the token again */
            apiStyle?: "rest" | "rpc";
            /** @description Added to the specification's fields, with apiStyle rpc only. For apiStyle rpc: the methods that only read, as paths after the base address (`conversations.list`, `users.info`). A GET or HEAD of exactly one of them is a read (services:read); any other call is a write. Matched exactly, case included */
            readMethods?: string[];
        };
        /** VaultTokenPage */
        VaultTokenPage: {
            data: components["schemas"]["VaultToken"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** VaultTokenResponse */
        VaultTokenResponse: {
            data: components["schemas"]["VaultToken"];
        };
        /** Webhook */
        Webhook: {
            id: string;
            url: string;
            events: string[];
            /** @description A disabled webhook is sent nothing; its pending deliveries are given up */
            enabled: boolean;
            /** @description `active`: sent to. `paused`: its endpoint kept failing, so the circuit breaker stopped sending to it until `pausedUntil`, when one probe delivery is tried (its success resumes it); its deliveries wait meanwhile, and `POST /webhooks/{id}/resume` resumes it at once. `disabled`: `enabled` is false */
            status: "active" | "paused" | "disabled";
            /** @description While paused: when the probe delivery is due (a time past means it is due or under way); null otherwise */
            pausedUntil: string | null;
            /** @description Attempts that failed in a row; a success resets it */
            consecutiveFailures: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** WebhookAttempt */
        WebhookAttempt: {
            /** Format: date-time */
            attemptedAt: string;
            outcome: "succeeded" | "failed";
            /** @description The endpoint's HTTP status; null when it was not reached */
            responseStatus: number | null;
            /** @description Why the attempt failed; null when it succeeded */
            error: string | null;
            durationMs: number;
        };
        /** WebhookDelivery */
        WebhookDelivery: {
            id: string;
            webhookId: string;
            /** @description The `webhook-id` header of every attempt: the receiver deduplicates by it */
            eventId: string;
            eventType: string;
            /** @description `pending` until an attempt succeeds (`delivered`) or retrying ends (`failed`) */
            state: "pending" | "delivered" | "failed";
            /** @description The JSON body sent, exactly as signed: `{ "type", "timestamp", "data" }` */
            body: string;
            attemptCount: number;
            nextAttemptAt: string | null;
            /** @description Why it failed when no attempt says so: an event that found too many deliveries already waiting for this webhook or this account is recorded as failed, never sent. Null otherwise */
            failureReason: string | null;
            /** Format: date-time */
            createdAt: string;
            /** @description Oldest first */
            attempts: components["schemas"]["WebhookAttempt"][];
        };
        /** WebhookDeliveryPage */
        WebhookDeliveryPage: {
            data: components["schemas"]["WebhookDelivery"][];
            /** @description Pass as `cursor` to read the next page; null on the last page */
            nextCursor: string | null;
        };
        /** WebhookDeliveryResponse */
        WebhookDeliveryResponse: {
            data: components["schemas"]["WebhookDelivery"];
        };
        /** WebhookList */
        WebhookList: {
            data: components["schemas"]["Webhook"][];
        };
        /**
         * WebhookPausedData
         * @description The circuit breaker paused a webhook whose endpoint kept failing: it is sent nothing until `pausedUntil`, then one probe delivery resumes it if it succeeds. Its deliveries wait meanwhile; `POST /api/v1/webhooks/{id}/resume` resumes it at once
         */
        WebhookPausedData: {
            webhookId: string;
            /** @description Attempts that failed in a row */
            consecutiveFailures: number;
            /** Format: date-time */
            failingSince: string;
            /** Format: date-time */
            pausedUntil: string;
            /** @description Why the last attempt failed */
            lastError: string | null;
        };
        /** WebhookReceipt */
        WebhookReceipt: {
            received: boolean;
            eventId: string;
            /** @description True when this event id was handled before; nothing was done again */
            duplicate: boolean;
            /** @description `applied`: a plan changed; `ignored`: the event needs nothing from Hearth */
            outcome: "applied" | "ignored";
        };
        /** WebhookReceiptResponse */
        WebhookReceiptResponse: {
            data: components["schemas"]["WebhookReceipt"];
        };
        /** WebhookResponse */
        WebhookResponse: {
            data: components["schemas"]["Webhook"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    openBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The email address the account was registered with */
                    email: string;
                    /** @description The account's password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrowserSessionResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    closeBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoggedOutResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    register: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description The email address the account signs in with
                     */
                    email: string;
                    /** @description At least 8 characters */
                    password: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistrationResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getRegistrationStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistrationStatusResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The email address the account was registered with */
                    email: string;
                    /** @description The account's password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoggedOutResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The account's password now. Checked under the same attempt limits as login */
                    currentPassword: string;
                    /** @description The new password: at least 8 characters, as at registration */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasswordChangedResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The secret of the password reset link (its `token` parameter), which `hearth reset-password` printed on the server */
                    token: string;
                    /** @description The new password: at least 8 characters, as at registration */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasswordResetResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    changeEmail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The account's password. Checked under the same attempt limits as login */
                    password: string;
                    /**
                     * Format: email
                     * @description The email address the account signs in with
                     */
                    newEmail: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAuthMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getUsersMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The account's password. Checked under the same attempt limits as login */
                    password: string;
                    /** @description The email the account signs in with, typed again to confirm that this account, and everything in it, is to be deleted for good */
                    confirmEmail: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountDeletedResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description The email address the account signs in with
                     */
                    email: string;
                    /** @description At least 8 characters */
                    password: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setUserPlan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The plan to move the account to: an id of GET /api/v1/billing/plans */
                    planId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setUserStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description true disables the account: its sign-in is refused with 403 ACCOUNT_DISABLED and every one of its tokens and sessions stops working at once. false enables it again: the tokens and sessions it had, unless revoked or expired meanwhile, work again */
                    disabled: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                kind?: "master" | "session" | "api" | "handshake" | "oauth";
                includeRevoked?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name to recognise the token by, e.g. the agent it is for */
                    name: string;
                    /** @description What the token may do: one or more scope names of GET /api/v1/scopes */
                    scopes: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
                    /** @description When the token stops working; never when absent or null */
                    expiresAt?: string | null;
                    /** @description Tags the token's memory is limited to; null or absent: all of the owner's memory */
                    memoryTags?: string[] | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedTokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    regenerateMasterToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The account password; needed from a login session */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedTokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    scopes?: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
                    /** @description null removes the expiry */
                    expiresAt?: string | null;
                    /** @description Tags the token's memory is limited to; null or absent: all of the owner's memory */
                    memoryTags?: string[] | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    regenerateToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The account password; needed from a login session */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedTokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAuditLog: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description Exact action (token.create) or a family (token.*) */
                action?: string;
                /** @description Only entries at or after this time */
                from?: string;
                /** @description Only entries before this time */
                to?: string;
                /** @description Only what this token did (its id, as in tokenId) */
                tokenId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEntryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getDiscovery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryDocument"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getQuickStart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuickStart"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getLlmsTxt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown-style text */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description Default Response */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listScopes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScopeInfoList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getTokenCapabilities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenCapabilitiesResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCapabilities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CapabilityManifestResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getGatewayContext: {
        parameters: {
            query?: {
                /** @description What the agent is about to do, in plain words. The memory and knowledge sections then hold what is most relevant to it first (ranked by the same search as GET /memory?q= and the knowledge base), each item with its id. Blank means no task */
                task?: string;
                /** @description A budget for the whole answer, in tokens estimated on its JSON (a quarter token per ASCII character, one per other character), 500 to 32000. User, token, persona, identity and preferences are kept whole; memory and knowledge share what is left, best items first; the endpoint list goes last. `budget` in the answer says what was used and which sections were cut. Without it nothing is cut */
                maxTokens?: number;
                /** @description Sections to send empty, for a client that has them otherwise: `endpoints` (an MCP client's tool list is its list of what it may do), `memory`, `knowledge`. Repeat the parameter for several. With maxTokens they are named in `budget.trimmed` */
                omit?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GatewayContextResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    streamEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A Server-Sent Events stream (text/event-stream). It opens with `retry: 3000`; each event is `id: <id>`, `event: <type>` and `data: <the event as JSON, this schema>` followed by a blank line; a comment line (`: heartbeat`) comes about every 25 seconds. The stream ends when the token is revoked or expires, when the server shuts down, or when the owner opens more streams than allowed (the oldest closes). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["AccountEvent"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getTokenPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPolicyResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setTokenPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description The whole policy: each class left out is `allow` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description The rule for each action class (devices.exec, mail.send, …): allow, ask or deny */
                    rules: {
                        /** @description Run a command on a remote PC */
                        "devices.exec"?: "allow" | "ask" | "deny";
                        /** @description Write a file or make a folder on a remote PC */
                        "devices.write"?: "allow" | "ask" | "deny";
                        /** @description Delete a file or folder on a remote PC */
                        "devices.delete"?: "allow" | "ask" | "deny";
                        /** @description Send mail from the connected mailbox */
                        "mail.send"?: "allow" | "ask" | "deny";
                        /** @description Move a message of the connected mailbox to the trash */
                        "mail.trash"?: "allow" | "ask" | "deny";
                        /** @description Upload a file to the connected file storage */
                        "files.upload"?: "allow" | "ask" | "deny";
                        /** @description Delete a file of the connected file storage */
                        "files.delete"?: "allow" | "ask" | "deny";
                        /** @description Call a service in a way that may change something (execute, proxy and pass-through calls other than reads: any method but GET or HEAD, and for RPC-style services any method not declared a read), create, change or delete connectors, and disconnect a connected account */
                        "services.write"?: "allow" | "ask" | "deny";
                        /** @description Add or change memory entries */
                        "memory.write"?: "allow" | "ask" | "deny";
                        /** @description Delete memory entries */
                        "memory.delete"?: "allow" | "ask" | "deny";
                        /** @description Add, upload, change or overwrite (upsert) knowledge-base documents */
                        "knowledge.write"?: "allow" | "ask" | "deny";
                        /** @description Delete knowledge-base documents */
                        "knowledge.delete"?: "allow" | "ask" | "deny";
                        /** @description Change the identity or the preferences */
                        "identity.write"?: "allow" | "ask" | "deny";
                        /** @description Create, change, activate or deactivate personas, and attach or detach their documents and skills */
                        "personas.write"?: "allow" | "ask" | "deny";
                        /** @description Delete personas */
                        "personas.delete"?: "allow" | "ask" | "deny";
                        /** @description Create, change, activate or deactivate skills, and attach or detach their documents */
                        "skills.write"?: "allow" | "ask" | "deny";
                        /** @description Delete skills */
                        "skills.delete"?: "allow" | "ask" | "deny";
                        /** @description Delete chat conversations */
                        "chat.delete"?: "allow" | "ask" | "deny";
                        /** @description Publish, change or delete marketplace listings (publishing makes the owner's content public), rate them, and install them into the owner's skills and personas */
                        "marketplace.write"?: "allow" | "ask" | "deny";
                        /** @description Store or delete vault tokens */
                        "vault.write"?: "allow" | "ask" | "deny";
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPolicyResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description `pending` until decided or expired; `approved` while it runs; `executed` when the request answered 2xx, `failed` when it answered an error (the token revoked, a scope taken away, the route refusing) or the server stopped while running it (it is then not run again) */
                status?: "pending" | "approved" | "denied" | "expired" | "executed" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalDetailResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    denyApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listHandshakes: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description A handshake not decided in time, or revoked, reads `denied` */
                status?: "pending" | "approved" | "denied";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakePage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createHandshake: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A unique id the agent chooses for itself */
                    agentId: string;
                    /** @description The scopes the agent asks for: read, professional or availability */
                    requestedScopes: ("read" | "professional" | "availability")[];
                    /** @description A short self-description of the agent, shown to the owner */
                    message: string;
                    /** @description The user id of the account to ask; without it the request goes to the instance's administrator */
                    ownerId?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeCreatedResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getHandshakeStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeStatusResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    claimHandshakeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The claimSecret the handshake was created with */
                    claimSecret: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeClaimResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    approveHandshake: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description May be left out entirely to approve exactly what was asked */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The scopes to grant, which may differ from those asked for (for example memory or personas besides read); the requested ones when absent */
                    scopes?: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
                    /**
                     * Format: date-time
                     * @description When the agent's token stops working; never when absent
                     */
                    expiresAt?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeApprovalResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    denyHandshake: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revokeHandshake: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandshakeResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listPersonas: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createPersona: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 100 characters, not only spaces */
                    name: string;
                    /** @description The persona's instructions (markdown), applied to chat while it is active. Up to 65536 bytes of UTF-8; more answers 413 */
                    soul_content: string;
                    /** @description A short description shown in listings; up to 2000 characters */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getActivePersona: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getPersona: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updatePersona: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description The fields to change; at least one */
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 100 characters, not only spaces */
                    name?: string;
                    /** @description A short description shown in listings; up to 2000 characters */
                    description?: string;
                    /** @description The persona's instructions (markdown), applied to chat while it is active. Up to 65536 bytes of UTF-8; more answers 413 */
                    soul_content?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deletePersona: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    activatePersona: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deactivatePersona: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listPersonaDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachedDocumentList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    attachPersonaDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The id of one of your knowledge-base documents */
                    documentId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    detachPersonaDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                docId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DetachedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listPersonaSkills: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachedSkillList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    attachPersonaSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The id (an integer) of one of your skills */
                    skillId: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    detachPersonaSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                /** @description A skill id (integer) */
                skillId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DetachedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentityResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, arrays and other values replace. The stored document is at most 64 KiB of JSON (413 beyond) and nests at most 32 levels */
        requestBody: {
            content: {
                "application/json": components["schemas"]["IdentityPatch"];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentityResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getProfessionalIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentitySectionResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAvailabilityIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentitySectionResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreferencesResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updatePreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, arrays and other values replace. The stored document is at most 64 KiB of JSON (413 beyond) and nests at most 32 levels */
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreferencesPatch"];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreferencesResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMemory: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description Search in natural language: entries containing any of its words (each a word prefix, stemmed) and, when an embedder is on, entries close to it in meaning, best match first, in one page (`nextCursor` is null); see match */
                q?: string;
                /** @description `any` (default): entries holding any word of q, ranked by bm25 so that those holding more and rarer words come first; `all`: only entries holding every word. Common English words (the, of, my…) are left out of q unless it has no other */
                match?: "any" | "all";
                /** @description Only entries written by this token (its id, as author.token.id shows it) */
                author?: string;
                /** @description Only entries written over this channel */
                channel?: "api" | "mcp" | "console" | "import" | "unknown";
                /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
                kind?: "fact" | "preference" | "event" | "instruction" | "note";
                /** @description Only entries with this tag (normalized as tags are) */
                tag?: string;
                /** @description Only pinned entries (true) or only the others (false) */
                pinned?: boolean;
                /** @description history: superseded and expired entries too (left out by default) */
                include?: "history";
                /** @description The entries that were current at this date-time: written by then, not yet superseded, within their window */
                asOf?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createMemory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Freeform markdown, not blank, at most 65,536 bytes of UTF-8 (413 beyond) */
                    content: string;
                    /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
                    kind?: "fact" | "preference" | "event" | "instruction" | "note";
                    /** @description At most 20 tags; repeats are kept once */
                    tags?: string[];
                    /** @description A core fact or standing instruction of the owner */
                    pinned?: boolean;
                    /** @description From when the entry holds (date-time); null clears it */
                    validFrom?: string | null;
                    /** @description Until when the entry holds (date-time, after validFrom); null clears it */
                    validUntil?: string | null;
                    source?: components["schemas"]["MemorySource"] | null;
                    /** @description Ids of current entries this one replaces (at most 20): they are kept, marked superseded by it, and leave lists, search and the context */
                    supersedes?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryDuplicate"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clearMemory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryCleared"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMemoryAuthors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryAuthorSummaryList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    forgetMemoryAuthor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The token whose entries to forget (its id, as author.token.id shows it); the token may be revoked or deleted already */
                    author: string;
                    /** @description true: only count what would be forgotten, and change nothing */
                    dryRun?: boolean;
                    /** @description The count the owner confirmed (from a dry run): when the token has since written or lost entries, nothing is deleted and the answer is 409 with the new count */
                    expectedCount?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryForgottenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description The fields to change; the others stay as they are */
        requestBody: {
            content: {
                "application/json": {
                    /** @description Freeform markdown, not blank, at most 65,536 bytes of UTF-8 (413 beyond) */
                    content?: string;
                    /** @description fact, preference, event, instruction or note (the default: an entry given only content is a note) */
                    kind?: "fact" | "preference" | "event" | "instruction" | "note";
                    /** @description At most 20 tags; repeats are kept once */
                    tags?: string[];
                    /** @description A core fact or standing instruction of the owner */
                    pinned?: boolean;
                    /** @description From when the entry holds (date-time); null clears it */
                    validFrom?: string | null;
                    /** @description Until when the entry holds (date-time, after validFrom); null clears it */
                    validUntil?: string | null;
                    source?: components["schemas"]["MemorySource"] | null;
                    /** @description The id of a current entry that replaces this one (given alone): this one is kept, marked superseded, and leaves lists, search and the context */
                    supersededBy?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMemoryHistory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMemoryProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    orderMemoryProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Ids of pinned entries in the order wanted, first first (at most 200); pinned entries not named follow, in their order before */
                    order: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryEntryList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    importMemory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description mem0 (its JSON export: get_all's results), mcp-memory (the MCP reference memory server's memory.json, JSON Lines of entities and relations), letta (an agent file, .af), markdown (an Obsidian vault or basic-memory folder as a .zip, or one .md note), text (lines or bullets pasted from ChatGPT's or Claude's "what do you remember about me") */
                    format: "mem0" | "mcp-memory" | "letta" | "markdown" | "text";
                    /** @description JSON requests: the text to import (what the file holds), at most 10 MiB of UTF-8. A zip is sent as a file */
                    content?: string;
                    /**
                     * Format: binary
                     * @description multipart/form-data requests: the file (at most 10 MiB); a zip for a folder of Markdown notes
                     */
                    file?: string;
                    /** @description true: answer what would be imported, and change nothing (default false) */
                    dryRun?: boolean;
                };
                "multipart/form-data": {
                    /** @description mem0 (its JSON export: get_all's results), mcp-memory (the MCP reference memory server's memory.json, JSON Lines of entities and relations), letta (an agent file, .af), markdown (an Obsidian vault or basic-memory folder as a .zip, or one .md note), text (lines or bullets pasted from ChatGPT's or Claude's "what do you remember about me") */
                    format: "mem0" | "mcp-memory" | "letta" | "markdown" | "text";
                    /** @description JSON requests: the text to import (what the file holds), at most 10 MiB of UTF-8. A zip is sent as a file */
                    content?: string;
                    /**
                     * Format: binary
                     * @description multipart/form-data requests: the file (at most 10 MiB); a zip for a folder of Markdown notes
                     */
                    file?: string;
                    /** @description true: answer what would be imported, and change nothing (default false) */
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryImportResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listKBDocuments: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description Search in natural language: documents holding any of its words (each a word prefix, stemmed), ranked by their best passage, in one page, each excerpt taken from that passage; see match (`all`: documents holding every word anywhere in their text) */
                q?: string;
                /** @description `any` (default): entries holding any word of q, ranked by bm25 so that those holding more and rarer words come first; `all`: only entries holding every word. Common English words (the, of, my…) are left out of q unless it has no other */
                match?: "any" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentSummaryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique among the owner's documents: the upsert key. Leading and trailing spaces are removed */
                    title: string;
                    /** @description Markdown or plain text, at most 10 MiB (UTF-8) */
                    content: string;
                    /**
                     * @description Where the text came from, e.g. agent, upload, web
                     * @default agent
                     */
                    source?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    searchKBPassages: {
        parameters: {
            query: {
                /** @description What to look for, in natural language: a question or words */
                q: string;
                /** @description Passages answered at most, 1 to 50 */
                limit?: number;
                /** @description `any` (default): entries holding any word of q, ranked by bm25 so that those holding more and rarer words come first; `all`: only entries holding every word. Common English words (the, of, my…) are left out of q unless it has no other */
                match?: "any" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBPassageHitsResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    upsertKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique among the owner's documents: the upsert key. Leading and trailing spaces are removed */
                    title: string;
                    /** @description Markdown or plain text, at most 10 MiB (UTF-8) */
                    content: string;
                    /** @description Where the text came from, e.g. agent, upload, web. Default agent when created; kept as it is when updated and not given */
                    source?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBUpsertResult"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    uploadKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The file (.txt, .md, .html, .pdf or .docx, at most 10 MiB); the part may also be named document, upload or kbFile
                     */
                    file?: string;
                    /** @description Default: the file name */
                    title?: string;
                    /** @description Default: upload */
                    source?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Markdown or plain text, at most 10 MiB (UTF-8) */
                    content: string;
                    /** @description Unique among the owner's documents: the upsert key. Leading and trailing spaces are removed */
                    title?: string;
                    /** @description Where the text came from, e.g. agent, upload, web */
                    source?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteKBDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KBDocumentDeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getKBDocumentAttachments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentUsageResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listSkills: {
        parameters: {
            query?: {
                /** @description Exact slug, any case */
                slug?: string;
                /** @description Exact category, any case */
                category?: string;
                /** @description Full-text search over name, description and category in natural language: skills holding any of its words (each a word prefix, stemmed), best match first; see match. Results are ranked and not paged */
                q?: string;
                /** @description `any` (default): entries holding any word of q, ranked by bm25 so that those holding more and rarer words come first; `all`: only entries holding every word. Common English words (the, of, my…) are left out of q unless it has no other */
                match?: "any" | "all";
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page (not with `q`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillSummaryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createSkill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The skill name, which is also its slug: 1 to 100 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit. Unique per owner, case-insensitively
                     * @example pdf-tools
                     */
                    name: string;
                    /** @description What the skill does and when to use it */
                    description?: string;
                    /** @description Free text, matched case-insensitively in filters */
                    category?: string;
                    /** @description The SKILL.md (Agent Skills format). Its YAML frontmatter is sanitized: only name, description, license, compatibility, metadata and allowed-tools are kept, name and description are set from the skill, and a missing or broken frontmatter is rebuilt */
                    scriptContent?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSkillSuggestions: {
        parameters: {
            query: {
                /** @description What the user typed so far; any word may match, prefixes included */
                q: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillSuggestionList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSkillBySlug: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    batchGetSkills: {
        parameters: {
            query?: {
                /** @description Repeat for several: ?id=1&id=2 */
                id?: number[];
                /** @description Repeat for several: ?slug=a&slug=b; any case */
                slug?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The skill name, which is also its slug: 1 to 100 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit. Unique per owner, case-insensitively
                     * @example pdf-tools
                     */
                    name?: string;
                    /** @description What the skill does and when to use it */
                    description?: string;
                    /** @description Free text, matched case-insensitively in filters */
                    category?: string;
                    /** @description The SKILL.md (Agent Skills format). Its YAML frontmatter is sanitized: only name, description, license, compatibility, metadata and allowed-tools are kept, name and description are set from the skill, and a missing or broken frontmatter is rebuilt */
                    scriptContent?: string;
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillDeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSkillContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SKILL.md, in the form the Accept header asks for */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillContentResponse"];
                    "text/markdown": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSkillMarkdown: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The raw SKILL.md */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    putSkillMarkdown: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "text/markdown": string;
                "text/plain": string;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    activateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deactivateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listSkillDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachedDocumentList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    attachSkillDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The id of one of your knowledge-base documents */
                    documentId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    detachSkillDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
                docId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DetachedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listSkillAttachments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The numeric skill id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachingPersonaList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search: {
        parameters: {
            query: {
                /** @description What to find, in plain language (a question, a sentence or words), up to 500 characters: items sharing any of its words or close to it in meaning, best first. Common English words (the, of, my…) are left out unless q has no other */
                q: string;
                /** @description Which kinds of item to search, comma-separated: memory, knowledge, skills. Without it, every kind this token's scopes may read (memory, knowledge, skills scopes); naming a kind the token may not read answers 403 */
                types?: string;
                /** @description Hits answered at most, 1 to 50 (default 10) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResults"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getSearchStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchStatusResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthAuthorize: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth provider: `google` */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthAuthorizationResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthCallback: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
                error?: string;
                error_description?: string;
                scope?: string;
                authuser?: string;
                hd?: string;
                prompt?: string;
                iss?: string;
            };
            header?: never;
            path: {
                /** @description The OAuth provider: `google` */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page saying the account is connected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthConnectPage: {
        parameters: {
            query: {
                /** @description The connect flow this page belongs to: the `state` of the address GET /api/v1/oauth/authorize/{service} answered */
                state: string;
            };
            header?: never;
            path: {
                /** @description The OAuth provider: `google` */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthConnectSignIn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth provider: `google` */
                service: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description The connect flow this page belongs to: the `state` of the address GET /api/v1/oauth/authorize/{service} answered */
                    state: string;
                    /** @description The Hearth account's password, proving that its owner is the one connecting */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description A page that opens the provider's consent screen */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthProviderStatusList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthDisconnect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth provider: `google` */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDisconnectionResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMailMessages: {
        parameters: {
            query?: {
                /** @description Messages per page, 1 to 20 (default 5) */
                maxResults?: number;
                /** @description A Gmail search query, as in the Gmail search box: `from:ann is:unread` */
                q?: string;
                /** @description The `nextPageToken` of the previous page */
                pageToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MailMessageList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMailMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Google's id of the message or file, as a list answered it */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MailMessageResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    trashMailMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Google's id of the message or file, as a list answered it */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MailTrashResult"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    sendMail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Recipients, comma-separated: `ann@example.org, Bob <bob@example.org>` */
                    to: string;
                    /** @description The subject line; may be empty */
                    subject: string;
                    /** @description Plain text; sent as UTF-8 */
                    body: string;
                    /** @description Copy recipients, comma-separated */
                    cc?: string | null;
                    /** @description Blind copy recipients, comma-separated; recipients do not see them */
                    bcc?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MailSendResult"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listStorageFiles: {
        parameters: {
            query?: {
                /** @description A Drive search query: `name contains 'report' and trashed = false` */
                q?: string;
                /** @description Files per page, 1 to 100 (default 20) */
                pageSize?: number;
                /** @description The `nextPageToken` of the previous page */
                pageToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DriveFileList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    uploadStorageFile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The file's name in Drive, e.g. notes.txt */
                    name: string;
                    /** @description The file content, as text (utf8) or base64 */
                    content: string;
                    /** @default text/plain */
                    mimeType?: string;
                    /** @default utf8 */
                    encoding?: "utf8" | "base64";
                    /** @description The Drive folder to put it in */
                    folderId?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DriveUploadResult"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    readStorageFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Google's id of the message or file, as a list answered it */
                fileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DriveFileContent"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteStorageFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Google's id of the message or file, as a list answered it */
                fileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DriveFileDeleted"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listServiceCategories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceCategoryList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listServices: {
        parameters: {
            query?: {
                /** @description Only services of this category (GET /services/categories) */
                category?: string;
                /** @description catalogue: built into Hearth; connector: defined by the owner (POST /connectors); discovered: found on the website of a vault token stored with discoverApi */
                source?: "catalogue" | "connector" | "discovered";
                /** @description Only connected (true) or unconnected (false) services */
                connected?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getService: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A built-in service id (github), a connector name or a discovered API name */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceDetailResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listServiceMethods: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A built-in service id (github), a connector name or a discovered API name */
                service: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceMethodList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    executeServiceMethod: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A built-in service id (github), a connector name or a discovered API name */
                service: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A method name from GET /services/{service}/methods, or `request` */
                    method: string;
                    /** @description The method's params, checked against its schema */
                    params?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceCallResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    proxyServiceRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A built-in service id (github), a connector name or a discovered API name */
                service: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The HTTP method to send: GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS */
                    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
                    /** @description Relative to the service's base address, e.g. /user/repos; never an absolute address */
                    path: string;
                    /** @description Query parameters; arrays repeat the parameter */
                    query?: {
                        [key: string]: string | number | boolean | (string | number | boolean)[];
                    };
                    /** @description Extra request headers: content negotiation, conditional, x-* and *-version headers. Credential, routing and cookie headers are refused (400); Hearth attaches the credential */
                    headers?: {
                        [key: string]: string;
                    };
                    /** @description JSON body; a string with a non-JSON Content-Type is sent as it is */
                    body?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceCallResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    callConnectedService: {
        parameters: {
            query?: {
                /** @description The service's own query parameters, passed on as they are (`?per_page=5&page=2`; form style, exploded). ?token= is not passed on when it carried Hearth's token. */
                query?: {
                    [key: string]: string;
                };
            };
            header?: never;
            path: {
                /** @description A built-in service id (github), a connector name or a discovered API name */
                service: string;
                /** @description The path on the service, relative to its base address. May contain slashes, which are sent unencoded (`repos/octocat/hello/issues`); a %2F stays %2F. */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceCallResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listConnectors: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectorPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createConnector: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description How the connector is called in /services/{name}/…: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit; unique per owner whatever the case, and not a built-in service id */
                    name: string;
                    /** @description The http(s) address every call is relative to, e.g. https://api.example.com/v2 (no query, fragment or user:password@) */
                    baseUrl: string;
                    /** @description How the credential travels: bearer = Authorization: Bearer <secret>; header = <headerName>: <secret>; query = ?<queryParam>=<secret>; none = no credential */
                    authType: "bearer" | "header" | "query" | "none";
                    /** @description One of the owner's vault tokens (GET /vault/tokens); required unless authType is none */
                    vaultTokenId?: string;
                    /** @description The header carrying the secret (authType header), e.g. X-API-Key */
                    headerName?: string;
                    /** @description The query parameter carrying the secret (authType query), e.g. api_key */
                    queryParam?: string;
                    /** @description rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy. Mark a connector rpc when its API acts on GET requests (Slack-like Web APIs), so that a services:read token cannot write through it */
                    apiStyle?: "rest" | "rpc";
                    /** @description For apiStyle rpc: the methods that only read, as paths after the base address (`conversations.list`, `users.info`). A GET or HEAD of exactly one of them is a read (services:read); any other call is a write. Matched exactly, case included. Only with apiStyle rpc; an rpc connector without any makes every call a write */
                    readMethods?: string[];
                    /** @description The account password. Needed only from a login session, and only when this request binds the vault token to an address off the site it was stored for (its websiteUrl's host or a subdomain; https unless the site is http; the site's port when it names one). The master token needs none (a password sent with it is ignored); a scoped token can never bind off the site. Checked under the same attempt limits as login, never stored */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectorResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectorResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description The fields to change; at least one besides password. Changing authType drops the fields the new type does not use (headerName, queryParam, or the vault token for none); changing apiStyle to rest drops readMethods, and readMethods replaces the whole list */
        requestBody: {
            content: {
                "application/json": {
                    /** @description How the connector is called in /services/{name}/…: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit; unique per owner whatever the case, and not a built-in service id */
                    name?: string;
                    /** @description The http(s) address every call is relative to, e.g. https://api.example.com/v2 (no query, fragment or user:password@) */
                    baseUrl?: string;
                    /** @description How the credential travels: bearer = Authorization: Bearer <secret>; header = <headerName>: <secret>; query = ?<queryParam>=<secret>; none = no credential */
                    authType?: "bearer" | "header" | "query" | "none";
                    /** @description One of the owner's vault tokens (GET /vault/tokens); required unless authType is none */
                    vaultTokenId?: string;
                    /** @description The header carrying the secret (authType header), e.g. X-API-Key */
                    headerName?: string;
                    /** @description The query parameter carrying the secret (authType query), e.g. api_key */
                    queryParam?: string;
                    /** @description rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack's Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token's policy. Mark a connector rpc when its API acts on GET requests (Slack-like Web APIs), so that a services:read token cannot write through it */
                    apiStyle?: "rest" | "rpc";
                    /** @description For apiStyle rpc: the methods that only read, as paths after the base address (`conversations.list`, `users.info`). A GET or HEAD of exactly one of them is a read (services:read); any other call is a write. Matched exactly, case included. Only with apiStyle rpc; an rpc connector without any makes every call a write */
                    readMethods?: string[];
                    /** @description The account password. Needed only from a login session, and only when this request binds the vault token to an address off the site it was stored for (its websiteUrl's host or a subdomain; https unless the site is http; the site's port when it names one). The master token needs none (a password sent with it is ignored); a scoped token can never bind off the site. Checked under the same attempt limits as login, never stored */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectorResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteConnector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listBillingPlans: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlanList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getBillingUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createBillingCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A paid plan of GET /api/v1/billing/plans */
                    planId: string;
                    /** @description Where Stripe sends the browser after payment. Default: a page of this server saying so. `{CHECKOUT_SESSION_ID}` is replaced by Stripe */
                    successUrl?: string;
                    /** @description Where Stripe sends the browser when the customer leaves checkout. Default: a page of this server saying so. `{CHECKOUT_SESSION_ID}` is replaced by Stripe */
                    cancelUrl?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSessionResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    billingCheckoutReturn: {
        parameters: {
            query?: {
                result?: "success" | "cancel";
                session_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    stripeWebhook: {
        parameters: {
            query?: never;
            header?: {
                "stripe-signature"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookReceiptResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listVaultTokens: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
                /** @description Only tokens for this service (case-insensitive) */
                service?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VaultTokenPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createVaultToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VaultTokenCreateRequest"];
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VaultTokenResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteVaultToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revealVaultToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevealedVaultTokenResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    discoverApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DiscoveryRequest"];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveredApiResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMarketplaceListings: {
        parameters: {
            query?: {
                /** @description Full-text filter over title and description: every word must match (word prefixes match too). The sort still applies */
                q?: string;
                /** @description What the listing offers: one of the publisher's skills or personas */
                type?: "skill" | "persona";
                /** @description `newest` (default), `rating` (highest average first, then most ratings) or `installs` (most installed first) */
                sort?: "newest" | "rating" | "installs";
                /** @description Page size, 1 to 100 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingSummaryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the listing offers: one of the publisher's skills or personas */
                    type: "skill" | "persona";
                    /** @description The published original: a skill id (integer) for `skill`, a persona id (string) for `persona` */
                    refId: number | string;
                    /** @description 1 to 200 characters, not only spaces; trimmed */
                    title: string;
                    /** @description Up to 2000 characters; trimmed. Omitted: the original's description */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        /** @description The fields to change; at least one */
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 200 characters, not only spaces; trimmed */
                    title?: string;
                    /** @description Up to 2000 characters; trimmed */
                    description?: string;
                    /** @description true: take the snapshot again from the original as it is now (which must still exist) */
                    refreshSnapshot?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rateMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 (worst) to 5 (best) */
                    rating: number;
                    /** @description Up to 2000 characters */
                    review?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMarketplaceListingRatings: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceRatingPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    installMarketplaceListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceInstallationResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listMyMarketplaceListings: {
        parameters: {
            query?: {
                /** @description Full-text filter over title and description: every word must match (word prefixes match too). The sort still applies */
                q?: string;
                /** @description What the listing offers: one of the publisher's skills or personas */
                type?: "skill" | "persona";
                /** @description `newest` (default), `rating` (highest average first, then most ratings) or `installs` (most installed first) */
                sort?: "newest" | "rating" | "installs";
                /** @description Page size, 1 to 100 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarketplaceListingSummaryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where events are POSTed: an https address (http, and loopback or private addresses, only when the server allows private network calls) */
                    url: string;
                    /** @description The event types to send */
                    events: ("handshake.created" | "handshake.decided" | "handshake.claimed" | "handshake.revoked" | "authorization.requested" | "authorization.decided" | "token.created" | "token.revoked" | "device.online" | "device.offline" | "oauth.needs_reauth" | "login.failed" | "approval.requested" | "approval.decided" | "webhook.paused" | "plan.changed")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWebhookResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedWebhookResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where events are POSTed: an https address (http, and loopback or private addresses, only when the server allows private network calls) */
                    url?: string;
                    /** @description The event types to send */
                    events?: ("handshake.created" | "handshake.decided" | "handshake.claimed" | "handshake.revoked" | "authorization.requested" | "authorization.decided" | "token.created" | "token.revoked" | "device.online" | "device.offline" | "oauth.needs_reauth" | "login.failed" | "approval.requested" | "approval.decided" | "webhook.paused" | "plan.changed")[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resumeWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    chat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What to say to the active persona: not blank, at most 32,768 bytes of UTF-8 (413 beyond) */
                    message: string;
                    /** @description Continue this conversation (its history is part of the prompt); omit to start a new one */
                    conversationId?: string;
                };
            };
        };
        responses: {
            /** @description The reply: JSON by default, a stream of server-sent events with Accept: text/event-stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatReplyResponse"];
                    "text/event-stream": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listConversations: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description The `nextCursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationSummaryPage"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConversation: {
        parameters: {
            query?: {
                /** @description How many of the newest messages, 1 to 500 */
                limit?: number;
                /** @description Only messages older than this message id (`olderMessagesCursor`) */
                before?: string;
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    startExport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Also carry vault secrets, OAuth tokens and webhook signing secrets, encrypted with passphrase (never in clear). Default false */
                    includeSecrets?: boolean;
                    /** @description A passphrase of your choice (at least 10 characters) that encrypts the secrets in the archive (scrypt + AES-256-GCM). Keep it: without it the secrets cannot be read or imported */
                    passphrase?: string;
                    /** @description The account password: needed from a login session (the console), not with the master token. Checked under the same attempt limits as login, never stored */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJobResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJobResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    downloadExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The archive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    importArchive: {
        parameters: {
            query?: {
                /** @description Check the archive and answer what would change, changing nothing. Default false */
                dryRun?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The archive (.zip) an export made
                     */
                    file?: string;
                    /** @description The passphrase of the export, to bring its secrets too */
                    passphrase?: string;
                    /** @description "true" for a dry run (as the dryRun query parameter) */
                    dryRun?: string;
                };
            };
        };
        responses: {
            /** @description The report: JSON by default; with Accept: text/event-stream, the progress as server-sent events and then the report */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportReportResponse"];
                    "text/event-stream": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    mcpStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An event stream of JSON-RPC messages from the server */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    mcpPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JsonRpcMessage"] | components["schemas"]["JsonRpcMessage"][];
            };
        };
        responses: {
            /** @description A JSON-RPC response (application/json) or an event stream of messages (text/event-stream), as the Model Context Protocol's Streamable HTTP transport sends them. An initialize answer carries the session id in the Mcp-Session-Id header. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                    "text/event-stream": string;
                };
            };
            /** @description Accepted: a notification or response, which has no answer */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    mcpEndSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMcpProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationServerMetadata"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    registerOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClientRegistration"];
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegisteredClient"];
                };
            };
            /** @description Default Response */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    authorize: {
        parameters: {
            query?: {
                response_type?: string;
                client_id?: string;
                redirect_uri?: string;
                scope?: string;
                state?: string;
                code_challenge?: string;
                code_challenge_method?: string;
                resource?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The consent page: sign in, choose the scopes, approve or deny */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Back to the client with an error */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description The request cannot go back to its client */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    authorizeDecision: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["ConsentForm"];
            };
        };
        responses: {
            /** @description The consent page again, saying what to correct */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Back to the client's redirect URI with a code, or with access_denied; or, sent to the console, to the waiting page */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description The form does not belong to an open request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The form was sent from another site */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    authorizeWait: {
        parameters: {
            query: {
                request_id: string;
                wait: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Still waiting: the page refreshes itself every few seconds */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Decided: to the client's redirect URI with a code, or with access_denied */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description The request expired, was answered already, or this address is not one Hearth gave */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAuthorizationRequests: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationRequestList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    approveAuthorizationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The scopes to grant, more or fewer than were asked; without it, those asked for */
                    scopes?: ("read" | "professional" | "availability" | "identity" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "services:read" | "services:write" | "vault" | "devices" | "marketplace")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationRequestResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    denyAuthorizationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationRequestResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["OAuthForm"];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthTokenAnswer"];
                };
            };
            /** @description Default Response */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Default Response */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oauthRevoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["OAuthForm"];
            };
        };
        responses: {
            /** @description Revoked, or nothing to revoke: the answer is the same */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Default Response */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Default Response */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpConnect: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching Protocols: the daemon's WebSocket. The daemon sends `hello`, the server answers `registered`; then the server sends `request` frames and the daemon `response` frames, with `heartbeat` both ways every heartbeatMs. */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpLinkFrames"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAfpDevices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpDeviceList"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAfpDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpDeviceResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteAfpDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpDeviceResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpListDir: {
        parameters: {
            query: {
                /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                path: string;
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpDirectoryListingResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpReadFile: {
        parameters: {
            query: {
                /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                path: string;
                /** @description base64 always answers base64; by default text is UTF-8 and binary files base64 */
                encoding?: "utf8" | "base64";
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpFileContentResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpWriteFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                    path: string;
                    /** @description The file's new content, at most 10485760 bytes (10 MiB) once decoded */
                    content: string;
                    /** @default utf8 */
                    encoding?: "utf8" | "base64";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpWriteResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpExec: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A shell command (/bin/sh -c on Linux and macOS, cmd.exe /c on Windows) */
                    cmd: string;
                    /** @description The working folder, inside the root; the root by default */
                    cwd?: string;
                    /**
                     * @description Milliseconds, at most 60000. At the timeout the command and everything it started are ended and the answer is 504 DEVICE_TIMEOUT
                     * @default 30000
                     */
                    timeout?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpExecResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpStat: {
        parameters: {
            query: {
                /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                path: string;
            };
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpStatResponse"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpDelete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                    path: string;
                    /**
                     * @description Required to remove a folder that is not empty
                     * @default false
                     */
                    recursive?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpDeleteResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    afpMkdir: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, as the API answered it */
                deviceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description An absolute path on the device, inside its root: /home/me/notes.txt, or C:\Users\me\notes.txt on Windows */
                    path: string;
                    /**
                     * @description Create missing parent folders too; an existing folder is then not an error
                     * @default true
                     */
                    recursive?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AfpMkdirResultResponse"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPending"];
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    downloadAfpDaemon: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description linux (x86-64), mac (Intel), mac-arm (Apple silicon), win (x86-64) */
                platform: "linux" | "mac" | "mac-arm" | "win";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The daemon executable */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConsolePage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The page's name */
                page: "agents" | "connect" | "memory" | "knowledge" | "chat" | "personas" | "skills" | "profile" | "vault" | "connections" | "devices" | "audit" | "webhooks" | "data" | "plan" | "users" | "reset-password";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConsoleAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The file name, as the console page names it */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                };
            };
            /** @description Default Response */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Default Response */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
