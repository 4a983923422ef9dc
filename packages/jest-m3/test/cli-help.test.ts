// `npx jest-m3 <command> --help`: every command prints its own help and exits 0, before it
// parses or does anything (init scaffolds nothing, show-report opens nothing).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, removeTempDir } from "./support/user-project";

const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");

function cli(cwd: string, args: readonly string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, M3_RUN_DIR: "" },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "m3-cli-help-"))));
afterAll(() => removeTempDir(dir));

/** The commands the overview lists: a command added later is covered without editing this. */
function listedCommands(): string[] {
  const overview = cli(dir, ["help"]);
  expect(overview.status).toBe(0);
  const commands = overview.stdout
    .split("Commands:\n")[1]!
    .split("\n")
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  return commands;
}

test("the overview lists every command", () => {
  expect(listedCommands()).toEqual(
    expect.arrayContaining(["show-report", "init", "diff", "merge-reports", "doctor", "help"]),
  );
});

test.each(["--help", "-h"])(
  "jest-m3 <command> %s prints that command's help and exits 0",
  (flag) => {
    const commands = listedCommands();
    for (const command of commands) {
      const run = cli(dir, [command, flag]);
      expect({ command, status: run.status, stderr: run.stderr }).toEqual({
        command,
        status: 0,
        stderr: "",
      });
      expect(run.stdout).toMatch(new RegExp(`^Usage: jest-m3 ${command}\\n`));
      expect(run.stdout).toContain(`  ${command}`);
      // Only that command's help: no other command's line.
      for (const other of commands.filter((name) => name !== command)) {
        expect(run.stdout).not.toMatch(new RegExp(`^ {2}${other}\\b`, "m"));
      }
    }
    // Nothing ran: init wrote no file, doctor printed no report.
    expect(readdirSync(dir)).toEqual([]);
  },
);

test("--help after other arguments still wins, and jest-m3 help <command> says the same", () => {
  const late = cli(dir, ["init", "--server", "node s.js", "--help"]);
  expect(late.status).toBe(0);
  expect(late.stdout).toContain("--server");
  expect(cli(dir, ["help", "diff"]).stdout).toBe(cli(dir, ["diff", "--help"]).stdout);
  expect(readdirSync(dir)).toEqual([]);
});

test("a wrong option still exits 2 and shows that command's help", () => {
  const run = cli(dir, ["diff", "--no-such-option"]);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain("--no-such-option");
  expect(run.stderr).toContain("Usage: jest-m3 diff");
});
