// Lanes of `npm test`: commands that run at once, each printed whole when it ends (with its
// time) unless it is the live lane, whose output streams as it comes (Jest's progress).
import { spawn } from "node:child_process";

/**
 * Runs `command` through the shell (npm and node_modules/.bin on PATH as npm gives them).
 * `nice` runs it at a lower priority (POSIX `nice`, 10; as is on Windows), so it takes the
 * cores only when the rest of the run leaves them idle. Resolves whether it passed.
 */
export function runLane(name, command, { live = false, nice = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const stdio = ["ignore", live ? "inherit" : "pipe", live ? "inherit" : "pipe"];
    const child =
      nice && process.platform !== "win32"
        ? spawn("nice", ["-n", "10", "sh", "-c", command], { stdio })
        : spawn(command, { shell: true, stdio });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const verdict = code === 0 ? "passed" : `failed (${signal ?? `exit code ${code}`})`;
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`\n${name} ${verdict} in ${seconds} s\n`);
      resolve(code === 0);
    });
  });
}

/** Runs the lanes at once; exits with status 1 when any failed, after all have ended. */
export async function runLanes(lanes) {
  const results = await Promise.all(lanes.map((lane) => runLane(...lane)));
  if (results.some((passed) => !passed)) process.exit(1);
}
