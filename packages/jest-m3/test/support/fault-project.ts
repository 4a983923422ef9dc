/**
 * The fault scenarios' user project (reliability/*-faults and *-signals tests): a project on
 * the faults fixture's scripted model and shipping session, the folder its server writes its
 * calls and pids to, and what a scenario that failed half-way may have left, cleaned up.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpChildRun, makeUserProject, type RunningJest } from "./user-project";

export const FAULT_FIXTURE = join(__dirname, "..", "fixtures", "faults");
/** The fixture's `shippingSession` module, as a quoted import specifier. */
export const FAULT_SESSION = JSON.stringify(join(FAULT_FIXTURE, "fault-session"));

/** m3.config.json of a project that runs `harness` on the faults fixture's scripted model. */
export function faultConfig(harness: string): string {
  return JSON.stringify({
    harnesses: [harness],
    scriptedModel: { script: join(FAULT_FIXTURE, "model-script.json") },
  });
}

/**
 * A user's test file: one shipping session that asks to wait `seconds` in shipping_wait
 * (the kit closed by `await using`), with Jest's timeout `jestTimeoutMs` when given.
 */
export function waitingSessionTest(name: string, seconds: number, jestTimeoutMs?: number): string {
  return `import { MCPTestKit } from "jest-m3";
import { shippingSession } from ${FAULT_SESSION};

test(${JSON.stringify(name)}, async () => {
  await using kit = new MCPTestKit({ env: {} });
  await using open = await shippingSession(kit).open();
  await open.send("wait on shipping for ${seconds} seconds");
}${jestTimeoutMs === undefined ? "" : `, ${jestTimeoutMs}`});
`;
}

/** The pids the fixture's (stubborn) servers wrote themselves to `out`/server.pids. */
export function serverPids(out: string): number[] {
  const file = join(out, "server.pids");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

/** One scenario's project, its Jest run and what to clean up after it. */
export interface FaultProject {
  /** The user's project. */
  readonly dir: string;
  /** The folder the fixture's servers write to (M3_FAULT_OUT). */
  readonly out: string;
  /** The Jest run, once the scenario started it: killed and awaited if it still runs. */
  jest: RunningJest | undefined;
  /** Processes (pid and start time) to stop if the scenario leaves them. */
  readonly leftovers: { pid: number; ticks: string | null }[];
  /** Folders (the kits' temporary ones) to remove if the scenario leaves them. */
  readonly leftoverDirs: string[];
}

/**
 * Runs `scenario` on a new user project of `files` and a new `out` folder (named from
 * `outPrefix`); afterwards, passed or failed, stops its leftovers and its Jest run and
 * removes the folders.
 */
export async function inFaultProject(
  files: Record<string, string>,
  outPrefix: string,
  scenario: (project: FaultProject) => Promise<void>,
): Promise<void> {
  const dir = makeUserProject(files);
  const project: FaultProject = {
    dir,
    out: mkdtempSync(join(tmpdir(), outPrefix)),
    jest: undefined,
    leftovers: [],
    leftoverDirs: [],
  };
  try {
    await scenario(project);
  } finally {
    await cleanUpChildRun({
      jest: project.jest,
      leftovers: project.leftovers,
      folders: [...project.leftoverDirs, project.dir, project.out],
    });
  }
}
