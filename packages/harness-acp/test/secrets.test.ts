/**
 * Planted secrets on both agents: the provider's key (a credentialEnv value), an HTTP
 * server's authorization header and a secret in a stdio server's environment. A real
 * session uses all three; then every file in the kit's temporary folders (the agent's
 * HOME, XDG folders and TMPDIR with its databases, logs and chats, its policy or config
 * file, the workspace, the wire capture's folder), the session's trace and events are
 * searched while the session is still open: the values never appear. The stdio server
 * does not see the agent's key (blanked).
 */
import { MCPTestKit } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { basename } from "node:path";
import {
  bothQuotesRule,
  expectNoValues,
  expectSecretsKept,
  kitTempDirs,
  useScriptedModel,
} from "@jest-m3/test-support";

jest.setTimeout(120_000);

const model = useScriptedModel({ rules: [bothQuotesRule("quote")] });

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
] as const)(
  "%s: a key, a header and a server secret reach no file, trace or event; the stdio server gets no key",
  async (harness, dialect: ProviderDialect) => {
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    try {
      const seen = await expectSecretsKept({
        kit,
        agent: {
          harness,
          models: ["scripted-1"],
          provider: model.providerFor(dialect),
          // Cold: the agent's own HOME, XDG folders and TMPDIR are then among the kit's
          // folders the scan reads (a warm agent's home is its pool's, outside the kit).
          options: { warm: false },
        },
        tag: "acp",
        // The agent's own home is one of the folders scanned.
        whileOpen: () =>
          expect(kitTempDirs(kit).map((dir) => basename(dir))).toContainEqual(
            expect.stringMatching(new RegExp(`^m3-${harness}-(?!warm-)`)),
          ),
        reported: ["GEMINI_API_KEY", "SCRIPTED_API_KEY"],
        prompt: "quote please",
      });
      expectNoValues(seen);
    } finally {
      await kit.close();
    }
  },
);
