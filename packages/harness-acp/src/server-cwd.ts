/**
 * Starts a captured stdio server in its own working directory: `node server-cwd.js <cwd>
 * <command> [args...]`. ACP's `mcpServers` entries have no `cwd`, so an agent starts them in
 * its own; this shim moves into the server's folder first. When the command is this Node
 * running a script (the wire capture's relay always is), the script runs in this very
 * process, so no extra process sits between the agent and the relay.
 */
import { spawn } from "node:child_process";

function main(): void {
  const [cwd, command, ...args] = process.argv.slice(2);
  if (cwd === undefined || command === undefined) {
    process.stderr.write("server-cwd: usage: server-cwd <cwd> <command> [args...]\n");
    process.exit(64);
  }
  try {
    process.chdir(cwd);
  } catch (error) {
    process.stderr.write(
      `server-cwd: cannot enter ${JSON.stringify(cwd)}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(66);
  }
  const [script, ...rest] = args;
  if (command === process.execPath && script !== undefined && /\.[cm]?js$/.test(script)) {
    process.argv = [process.execPath, script, ...rest];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- runs the relay in place
    require(script);
    return;
  }
  const child = spawn(command, args, { stdio: "inherit" });
  child.on("error", (error) => {
    process.stderr.write(`server-cwd: cannot start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => child.kill(signal));
  }
}

main();
