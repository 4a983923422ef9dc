/**
 * The adapter kit's isolated home on the real file system and in a real child process: the
 * fresh folders (mode 0700), the environment a started agent sees (every settings and state
 * folder in the home, the agent's own variables on top), and a settings file readable by its
 * owner only.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createIsolatedHome, isolatedEnvironment, writeJsonFile } from "@jest-m3/core/adapter-kit";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "m3-isolated-home-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test("createIsolatedHome makes HOME, the XDG folders and TMPDIR, each 0700, in the root", async () => {
  const home = await createIsolatedHome(root);
  expect(home).toEqual({
    root,
    home: join(root, "home"),
    configHome: join(root, "config"),
    dataHome: join(root, "data"),
    cacheHome: join(root, "cache"),
    stateHome: join(root, "state"),
    tmp: join(root, "tmp"),
  });
  for (const folder of Object.values(home).filter((path) => path !== root)) {
    const info = await stat(folder);
    expect(info.isDirectory()).toBe(true);
    if (process.platform !== "win32") expect(info.mode & 0o777).toBe(0o700);
  }
});

test("a process started with isolatedEnvironment sees only the home's folders", async () => {
  const home = await createIsolatedHome(root);
  const env = isolatedEnvironment(
    { PATH: process.env.PATH ?? "", HOME: "/host/home", XDG_CONFIG_HOME: "/host/config" },
    home,
    { MY_AGENT_SWITCH: "on", TMPDIR: join(home.tmp, "own") },
  );
  const seen = JSON.parse(
    execFileSync(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.env))"], {
      env,
      encoding: "utf8",
    }),
  ) as Record<string, string>;
  expect(seen).toMatchObject({
    HOME: home.home,
    XDG_CONFIG_HOME: home.configHome,
    XDG_DATA_HOME: home.dataHome,
    XDG_CACHE_HOME: home.cacheHome,
    XDG_STATE_HOME: home.stateHome,
    // The agent's own variables come last, over the home's.
    TMPDIR: join(home.tmp, "own"),
    MY_AGENT_SWITCH: "on",
  });
  expect(Object.values(seen)).not.toContain("/host/home");
  expect(Object.values(seen)).not.toContain("/host/config");
});

test("writeJsonFile makes the folder and writes indented JSON readable by its owner only", async () => {
  const dir = join(root, "config", "my-agent");
  const file = await writeJsonFile(dir, "settings.json", { telemetry: { enabled: false } });
  expect(file).toBe(join(dir, "settings.json"));
  expect(await readFile(file, "utf8")).toBe('{\n  "telemetry": {\n    "enabled": false\n  }\n}');
  if (process.platform !== "win32") {
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  }
});
