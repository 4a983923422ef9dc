/**
 * The jest-m3 CLI run in the test's own process (its `main`, as `npx jest-m3` calls it), with
 * what it prints kept.
 */
import { main } from "../../dist/cli/main";

/** How a CLI command ended: its exit code and what it wrote to stdout and stderr. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `jest-m3 <argv>` in `cwd` and waits for it. */
export async function runCli(cwd: string, ...argv: string[]): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    cwd,
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}
