/**
 * An error of the OAuth protocol endpoints (token, registration, revocation): answered as the
 * RFCs say, `{ "error": "invalid_grant", "error_description": "…" }`, because the clients on the
 * other side (MCP SDKs, Claude, ChatGPT) read exactly those fields. The API's own routes keep
 * the API's error shape.
 */
export class OAuthProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(description);
  }

  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/**
 * An authorization request that cannot go back to the client: its client or redirect URI is
 * unknown or wrong, so sending the browser anywhere would be an open redirect. Shown as a page.
 */
export class AuthorizationPageError extends Error {}

/** An authorization request refused after its redirect URI was verified: the browser goes back with the error. */
export class AuthorizationRedirect extends Error {
  constructor(readonly location: string) {
    super(`redirect to ${location}`);
  }
}
