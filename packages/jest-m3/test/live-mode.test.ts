// The examples' live mode, on a machine with no Codex login and no key: the run says it is
// live, the session is refused with HarnessNotReady and its reasons, and nothing falls
// back to the scripted model.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, runJest } from "./support/user-project";

test("a live run without credentials fails with HarnessNotReady, never on the scripted model", () => {
  const home = mkdtempSync(join(tmpdir(), "jest-m3-no-login-"));
  try {
    const run = runJest(join(REPO, "examples", "shipping"), {
      args: ["session.test.ts"],
      env: { M3_PROVIDER: "live", M3_DOCS_CODEX_MODEL: "gpt-5.5", HOME: home, CODEX_HOME: home },
      timeoutMs: 120_000,
    });
    expect(run.status).toBe(1);
    expect(run.output).toContain("jest-m3: model provider: live");
    expect(run.output).not.toContain("scripted model at");
    expect(run.output).toContain('HarnessNotReady: Harness "codex" is not ready for this session');
    expect(run.output).toMatch(
      /credentials: unavailable \(no provider and no credentials given, and no Codex login/,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
