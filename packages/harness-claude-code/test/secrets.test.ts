/**
 * Planted secrets: the provider's key (a credentialEnv value), an HTTP server's
 * authorization header and a secret in a stdio server's environment. A real Claude Code
 * session uses all three; then every file in the kit's temporary folders (Claude Code's
 * HOME and config dir, its MCP logs, the workspace, the wire capture's folder), the
 * session's trace and events are searched while the session is still open: the values
 * never appear. The stdio server itself does not see Claude Code's key (blanked).
 */
import { MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { bothQuotesRule, expectNoValues, expectSecretsKept } from "@jest-m3/test-support";

jest.setTimeout(60_000);

test("a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  await using model = await startScriptedModel({
    rules: [bothQuotesRule("quote", "The quote is {{result.amount}}.")],
  });
  const kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  try {
    const seen = await expectSecretsKept({
      kit,
      agent: {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: model.providerFor("anthropic-messages"),
      },
      tag: "claude",
      reported: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "SCRIPTED_API_KEY"],
      prompt: "quote please",
      timeout: 60_000,
    });
    // The key reached the model (as Claude Code's x-api-key), so it was really used ...
    expect(model.journal.entries.length).toBeGreaterThan(0);
    // ... but not the stdio server's environment: absent (core's relay passes the server
    // only the allow-listed environment and its spec's variables) or blanked (the adapter's
    // own guard): either way, no value.
    expectNoValues(seen);
  } finally {
    await kit.close();
  }
});
