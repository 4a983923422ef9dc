// The relay starts the real server with the allow-listed environment plus the variables
// its spec names, in the spec's cwd: an agent that hands its MCP servers its whole
// environment (Claude Code does, API key included) cannot leak it into the server.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";

test("the server gets the allow-listed environment, its spec's variables and its cwd, nothing else", async () => {
  const dir = mkdtempSync(join(tmpdir(), "m3-relay-env-"));
  try {
    await using kit = new MCPTestKit({ env: {} });
    const out = join(dir, "seen.json");
    const { servers } = await kit.capture({
      servers: [
        {
          name: "envprobe",
          command: process.execPath,
          args: [
            "-e",
            "require('fs').writeFileSync(process.argv[1], JSON.stringify({ env: process.env, cwd: process.cwd() }))",
            out,
          ],
          env: { SPEC_VARIABLE: "from-the-spec" },
          cwd: dir,
        },
      ],
    });
    const captured = servers[0]!;
    if (captured.kind !== "stdio") throw new Error("expected a stdio server");
    // What an agent that passes its whole environment would do.
    const agentEnv = {
      ...process.env,
      ...captured.env,
      ANTHROPIC_API_KEY: "planted-key-value",
      CLAUDECODE: "1",
    };
    const relay = spawn(captured.command, [...captured.args], { env: agentEnv, stdio: "ignore" });
    const code = await new Promise<number | null>((resolve) => relay.on("exit", resolve));
    expect(code).toBe(0);
    const seen = JSON.parse(readFileSync(out, "utf8")) as {
      env: Record<string, string>;
      cwd: string;
    };
    expect(seen.env.SPEC_VARIABLE).toBe("from-the-spec");
    expect(seen.env.PATH).toBe(process.env.PATH);
    expect(seen.env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(seen.env.CLAUDECODE).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain("planted-key-value");
    expect(seen.cwd).toBe(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
