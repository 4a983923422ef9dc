/**
 * The MCP SDK's OAuth client flow in direct tests, against a local authorization server
 * built from the SDK's own server-side pieces: discovery, dynamic registration, the
 * authorization step, the token exchange; the token reaches the MCP server (which says
 * which client it verified); every secret is redacted by value.
 */
import { InvalidArgument, MCPTestKit, MissingSecret, ServerStartError } from "@jest-m3/core";
import { startOAuthMcpServer, type OAuthMcpServer } from "./support/oauth-server";

describe("direct client: OAuth", () => {
  let vault: OAuthMcpServer;
  beforeEach(async () => {
    vault = await startOAuthMcpServer();
  });
  afterEach(async () => {
    await vault.close();
  });

  test("dynamic registration, authorization code with PKCE, tokens; the server verifies them; nothing secret in the trace", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(
      { name: "vault", url: vault.url },
      { auth: { oauth: { scope: "mcp:tools", clientName: "m3-test" } } },
    );
    // Without a token the server refuses: the flow is what lets the client in.
    expect((await fetch(vault.url, { method: "POST" })).status).toBe(401);
    const result = await client.callTool("whoami");
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toMatch(/^client [\w-]+$/);
    const clientId = text.slice("client ".length);
    expect(vault.callers).toEqual([clientId]);
    expect(await vault.provider.clientsStore.getClient(clientId)).toEqual(
      expect.objectContaining({ client_name: "m3-test", scope: "mcp:tools" }),
    );
    const paths = vault.requests.map((request) => `${request.method} ${request.path}`);
    for (const step of [
      "GET /.well-known/oauth-protected-resource/mcp",
      "GET /.well-known/oauth-authorization-server",
      "POST /register",
      "GET /authorize",
      "POST /token",
    ]) {
      expect(paths).toContain(step);
    }
    const mcpCalls = vault.requests.filter((request) => request.path === "/mcp");
    // The test's own probe went without a token; every request of the client carried one.
    expect(mcpCalls.length).toBeGreaterThan(1);
    expect(mcpCalls.map((request) => request.auth)).toEqual([
      null,
      ...mcpCalls.slice(1).map(() => "Bearer"),
    ]);
    // The issued tokens never show up in what the kit keeps.
    const tokens = [
      ...(vault.provider as unknown as { tokens: Map<string, unknown> }).tokens.keys(),
    ];
    expect(tokens.length).toBeGreaterThan(0);
    const kept = JSON.stringify(client.trace);
    for (const token of tokens) expect(kept).not.toContain(token);
    await client.close();
  });

  test("a pre-registered client from secret references; a wrong secret fails the start with the step, never the value", async () => {
    const registered = await vault.provider.clientsStore.registerClient({
      client_id: "m3-registered",
      client_secret: "s3cr3t-value-for-test",
      redirect_uris: ["http://127.0.0.1/jest-m3/oauth/callback"],
      token_endpoint_auth_method: "client_secret_post",
    });
    process.env.M3_TEST_OAUTH_ID = registered.client_id;
    process.env.M3_TEST_OAUTH_SECRET = "s3cr3t-value-for-test";
    process.env.M3_TEST_OAUTH_WRONG = "wrong-s3cr3t-value";
    try {
      await using kit = new MCPTestKit({ env: {} });
      // The registered client's id, and its secret from the variable `secret` names.
      const registeredClient = (secret: string) =>
        kit.direct(
          { name: "vault", url: vault.url },
          {
            auth: {
              oauth: { clientId: { env: "M3_TEST_OAUTH_ID" }, clientSecret: { env: secret } },
            },
          },
        );
      const client = registeredClient("M3_TEST_OAUTH_SECRET");
      const result = await client.callTool("whoami");
      expect(result.content).toEqual([{ type: "text", text: "client m3-registered" }]);
      expect(vault.requests.map((request) => request.path)).not.toContain("/register");

      const wrong = registeredClient("M3_TEST_OAUTH_WRONG");
      const failure = await wrong.callTool("whoami").catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServerStartError);
      expect((failure as Error).message).toMatch(/OAuth authorization failed: .*[Ii]nvalid client/);
      expect((failure as Error).message).not.toContain("wrong-s3cr3t-value");
    } finally {
      delete process.env.M3_TEST_OAUTH_ID;
      delete process.env.M3_TEST_OAUTH_SECRET;
      delete process.env.M3_TEST_OAUTH_WRONG;
    }
  });

  test("an authorization server that refuses: a readable start failure naming the error", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(
      { name: "vault", url: vault.url },
      {
        auth: {
          oauth: {
            authorize: async (url) => {
              const back = new URL(url.searchParams.get("redirect_uri")!);
              back.searchParams.set("error", "access_denied");
              back.searchParams.set("error_description", "the test said no");
              return back;
            },
          },
        },
      },
    );
    await expect(client.callTool("whoami")).rejects.toThrow(
      /OAuth authorization failed: the authorization server refused: access_denied \(the test said no\)/,
    );
    expect(vault.callers).toEqual([]);
  });

  test("bad OAuth options fail at kit.direct(), before anything is sent", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const server = { name: "vault", url: vault.url };
    const cases: [unknown, RegExp][] = [
      [{ oauth: "yes" }, /auth\.oauth must be an object/],
      [{ oauth: { client: "x" } }, /auth\.oauth has an unknown key "client"/],
      [{ oauth: { clientId: "plain-id" } }, /auth\.oauth\.clientId must be a secret reference/],
      [{ oauth: { clientSecret: { env: "X" } } }, /clientSecret needs a clientId/],
      [{ oauth: { redirectUrl: "not a url" } }, /redirectUrl must be an http\(s\) URL/],
      [{ oauth: { authorize: "auto" } }, /authorize must be a function/],
      [{ oauth: {}, bearer: { env: "TOKEN" } }, /give bearer or oauth, not both/],
    ];
    for (const [auth, message] of cases) {
      expect(() => kit.direct(server, { auth: auth as never })).toThrow(InvalidArgument);
      expect(() => kit.direct(server, { auth: auth as never })).toThrow(message);
    }
    const missing = kit.direct(server, {
      auth: { oauth: { clientId: { env: "M3_TEST_OAUTH_NOT_SET" } } },
    });
    await expect(missing.callTool("whoami")).rejects.toThrow(MissingSecret);
    expect(vault.requests).toEqual([]);
  });
});
