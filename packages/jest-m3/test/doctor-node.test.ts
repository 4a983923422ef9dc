// doctor's node line per agent (issue 30): which Node runs each agent, read from what the
// harness found and the agent package's own engines field as installed in this repository.
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Readiness } from "@jest-m3/core";
import { agentNodeLine } from "../dist/cli/doctor";
import { KNOWN_HARNESSES } from "../dist/main/known-harnesses";

const repoRequire = createRequire(join(__dirname, "..", "..", "..", "package.json"));
const known = (name: string) => KNOWN_HARNESSES.find((harness) => harness.name === name);

function readiness(executable: string, capabilities: Record<string, unknown> = {}): Readiness {
  return {
    ready: true,
    harness: { name: "x", version: "1.0.0", executable },
    capabilities,
  } as unknown as Readiness;
}

test("a native binary needs no Node: the install's engine warning is named as not applying", () => {
  const line = agentNodeLine(
    known("claude-code"),
    readiness("node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
    repoRequire,
  );
  expect(line).toEqual({
    ok: true,
    line: expect.stringContaining(
      "node: not used (a native binary; @anthropic-ai/claude-code asks for Node >=22.0.0 at install, which does not apply)",
    ),
  });
});

test("a JavaScript agent runs on this Node: checked against its package's engines", () => {
  const gemini = readiness("node_modules/@google/gemini-cli/bundle/gemini.js");
  expect(agentNodeLine(known("gemini"), gemini, repoRequire, "20.20.2")).toEqual({
    ok: true,
    line: "node: this Node, 20.20.2; @google/gemini-cli asks for Node >=20",
  });
  const old = agentNodeLine(known("gemini"), gemini, repoRequire, "18.19.0");
  expect(old?.ok).toBe(false);
  expect(old?.line).toContain("too old — this Node, 18.19.0");
  expect(old?.line).toContain("fix: run the tests on Node 20 or later");
});

test("an agent the harness runs on its own Node says which, as the harness found it", () => {
  const line = agentNodeLine(
    known("qwen-code"),
    readiness("node_modules/@qwen-code/qwen-code/cli.js", {
      node: { status: "unavailable", reason: "no Node ≥ 22.0.0 found" },
    }),
    repoRequire,
  );
  expect(line).toEqual({ ok: false, line: "node: unavailable — no Node ≥ 22.0.0 found" });
});
