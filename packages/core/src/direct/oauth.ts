import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { sdkAuth } from "./sdk-modules.js";
import { InvalidArgument, MissingSecret, ServerStartError } from "../errors.js";
import type { SecretRef } from "./secret-ref.js";

/**
 * The MCP SDK's OAuth client flow (authorization code with PKCE), run without a browser:
 * discovery of the server's authorization server, dynamic client registration (or a
 * pre-registered client from secret references), the authorization step, the token
 * exchange, and refresh on a later 401, all by the SDK. Meant for tests against a local
 * authorization server; every token, code and client secret is redacted by value.
 *
 * @example
 * ```ts
 * const client = kit.direct(server, { auth: { oauth: { scope: "mcp:tools" } } });
 * ```
 */
export interface OAuthOptions {
  /** A pre-registered client's id; omitted: the client registers itself (RFC 7591). */
  readonly clientId?: SecretRef;
  /** The pre-registered client's secret, if it has one. */
  readonly clientSecret?: SecretRef;
  /** The scopes to ask for, space-separated. */
  readonly scope?: string;
  /** The client's name in its registration (default `jest-m3`). */
  readonly clientName?: string;
  /**
   * The redirect URI registered and sent (default `http://127.0.0.1/jest-m3/oauth/callback`).
   * Nothing listens there: the authorization step reads the code from the redirect itself.
   */
  readonly redirectUrl?: string;
  /**
   * Plays the user at the authorization endpoint: gets the authorization URL, returns the
   * URL the browser would be redirected to (with `code`). Default: a GET of the URL without
   * following redirects, for authorization servers that approve test clients at once.
   */
  readonly authorize?: (authorizationUrl: URL) => Promise<URL | string>;
}

const DEFAULT_REDIRECT = "http://127.0.0.1/jest-m3/oauth/callback";
const KEYS = ["clientId", "clientSecret", "scope", "clientName", "redirectUrl", "authorize"];

/** Checks an `auth.oauth` option before anything starts. */
export function parseOAuthOptions(
  value: unknown,
  where: string,
  checkRef: (ref: unknown, where: string) => void,
): OAuthOptions {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgument(
      `${where} must be an object { clientId?, clientSecret?, scope?, clientName?, redirectUrl?, authorize? } (or {} for dynamic registration).`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) {
      throw new InvalidArgument(
        `${where} has an unknown key "${key}" (known: ${KEYS.join(", ")}).`,
      );
    }
  }
  const options = value as Record<string, unknown>;
  if (options.clientId !== undefined) checkRef(options.clientId, `${where}.clientId`);
  if (options.clientSecret !== undefined) {
    if (options.clientId === undefined) {
      throw new InvalidArgument(
        `${where}.clientSecret needs a clientId: a secret belongs to a pre-registered client.`,
      );
    }
    checkRef(options.clientSecret, `${where}.clientSecret`);
  }
  for (const key of ["scope", "clientName"] as const) {
    if (options[key] !== undefined && (typeof options[key] !== "string" || options[key] === "")) {
      throw new InvalidArgument(`${where}.${key} must be a non-empty string.`);
    }
  }
  if (options.redirectUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(String(options.redirectUrl));
    } catch {
      url = undefined;
    }
    if (typeof options.redirectUrl !== "string" || !url || !/^https?:$/.test(url.protocol)) {
      throw new InvalidArgument(
        `${where}.redirectUrl must be an http(s) URL; got ${JSON.stringify(options.redirectUrl)}.`,
      );
    }
  }
  if (options.authorize !== undefined && typeof options.authorize !== "function") {
    throw new InvalidArgument(
      `${where}.authorize must be a function (authorizationUrl) => redirect URL.`,
    );
  }
  return value as OAuthOptions;
}

/** The default authorization step: GET the URL, take the redirect's location. */
async function followAuthorization(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  if (response.status < 300 || response.status >= 400 || !location) {
    const body = (await response.text().catch(() => "")).slice(0, 300);
    throw new Error(
      `the authorization endpoint answered ${response.status} without a redirect${body ? `: ${body}` : ""}. ` +
        `An authorization server that asks a user needs an \`authorize\` function that plays the user.`,
    );
  }
  return new URL(location, url);
}

/**
 * The SDK's {@link OAuthClientProvider}, in memory, for one direct client. Every secret it
 * sees (client secret, code, tokens) goes to `onSecret` before it is used, so it is
 * redacted everywhere it could appear.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";
  private code: Promise<string> | undefined;

  constructor(
    private readonly server: string,
    private readonly options: OAuthOptions,
    env: Readonly<Record<string, string | undefined>>,
    private readonly onSecret: (value: string, name: string) => void,
  ) {
    const read = (ref: SecretRef, usedFor: string): string => {
      const value = env[ref.env];
      if (!value) throw new MissingSecret(server, ref.env, usedFor);
      onSecret(value, ref.env);
      return value;
    };
    if (options.clientId) {
      this.client = {
        client_id: read(options.clientId, "the OAuth client id"),
        ...(options.clientSecret
          ? { client_secret: read(options.clientSecret, "the OAuth client secret") }
          : {}),
      };
    }
  }

  get redirectUrl(): string {
    return this.options.redirectUrl ?? DEFAULT_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? "jest-m3",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.options.clientSecret ? "client_secret_post" : "none",
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    if (information.client_secret) this.onSecret(information.client_secret, "OAUTH_CLIENT_SECRET");
    this.client = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.onSecret(tokens.access_token, "OAUTH_ACCESS_TOKEN");
    if (tokens.refresh_token) this.onSecret(tokens.refresh_token, "OAUTH_REFRESH_TOKEN");
    this.saved = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.code = (async () => {
      const redirected = await (this.options.authorize ?? followAuthorization)(authorizationUrl);
      const target = new URL(String(redirected), authorizationUrl);
      const error = target.searchParams.get("error");
      if (error) {
        const description = target.searchParams.get("error_description");
        throw new Error(
          `the authorization server refused: ${error}${description ? ` (${description})` : ""}`,
        );
      }
      const code = target.searchParams.get("code");
      if (!code)
        throw new Error(`the redirect to ${target.origin}${target.pathname} carries no code`);
      this.onSecret(code, "OAUTH_AUTHORIZATION_CODE");
      return code;
    })();
    // Read by authorizeWithOAuth; a rejection before then is not unhandled.
    this.code.catch(() => undefined);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.onSecret(codeVerifier, "OAUTH_CODE_VERIFIER");
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /** The code of the authorization step that ran, once it has. */
  async authorizationCode(): Promise<string> {
    if (!this.code) throw new Error("the SDK did not ask for authorization");
    return this.code;
  }

  /** Where these options name the server in messages. */
  get serverName(): string {
    return this.server;
  }
}

/**
 * Runs the SDK's OAuth flow until the provider holds tokens: discovery, registration,
 * the authorization step, the token exchange.
 *
 * @throws {@link ServerStartError} saying which step failed; nothing secret in the message.
 */
export async function authorizeWithOAuth(
  provider: TestOAuthProvider,
  serverUrl: URL,
  scope: string | undefined,
  redact: (text: string) => string,
): Promise<void> {
  try {
    const options = { serverUrl, ...(scope ? { scope } : {}) };
    let result = await sdkAuth().auth(provider, options);
    if (result === "REDIRECT") {
      const authorizationCode = await provider.authorizationCode();
      result = await sdkAuth().auth(provider, { ...options, authorizationCode });
    }
    if (result !== "AUTHORIZED") throw new Error(`the SDK's flow ended with ${String(result)}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ServerStartError(
      provider.serverName,
      redact(
        `OAuth authorization failed: ${reason}. The flow discovers the authorization server from ${serverUrl.origin}'s metadata, registers a client (unless auth.oauth.clientId is given), authorizes, and exchanges the code for tokens.`,
      ),
    );
  }
}
