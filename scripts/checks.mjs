// The static checks of `npm test` in two lanes at once, one per core: the type check (which
// builds the packages) beside lint and format, which read only sources. Each lane's output is
// printed whole when it ends, with its time; the script fails when either lane does, after
// both have ended. `npm run typecheck`, `npm run lint` and `npm run format:check` still run
// each check alone.
import { spawn } from "node:child_process";

const LANES = [
  ["typecheck", ["run", "typecheck"]],
  ["lint and format", ["run", "lint", "&&", "npm", "run", "format:check"]],
];

/** Runs one lane through the shell (npm on PATH), collecting its output. */
function run([name, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(["npm", ...args].join(" "), {
      shell: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const verdict = code === 0 ? "passed" : `failed (${signal ?? `exit code ${code}`})`;
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`\nchecks: ${name} ${verdict} in ${seconds} s\n`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(LANES.map(run));
if (results.some((passed) => !passed)) process.exit(1);
