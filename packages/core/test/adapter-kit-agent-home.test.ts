/**
 * The adapter kit's homes part on the real file system: fresh folders with mode 0700, the
 * regular-file check (missing, a symbolic link, a folder), and a copy that refuses a link,
 * never overwrites and leaves the copy readable only by its owner.
 */
import { mkdtemp, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  copyRegularFile,
  createHomes,
  homeEnvironment,
  regularFile,
} from "@jest-m3/core/adapter-kit";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "m3-agent-home-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test("createHomes makes one 0700 folder per name, under the names given", async () => {
  const homes = await createHomes(root, { home: "home", config: "agent-config" });
  expect(homes).toEqual({ home: join(root, "home"), config: join(root, "agent-config") });
  for (const folder of Object.values(homes)) {
    const info = await stat(folder);
    expect(info.isDirectory()).toBe(true);
    if (process.platform !== "win32") expect(info.mode & 0o777).toBe(0o700);
  }
  await expect(createHomes(root, { home: "home" })).rejects.toThrow(/EEXIST/);
});

test("regularFile: a file is ok; missing, a link and a folder say why", async () => {
  const file = join(root, "auth.json");
  await writeFile(file, "{}");
  await symlink(file, join(root, "link.json"));
  await mkdir(join(root, "folder"));
  expect(regularFile(file)).toEqual({ ok: true });
  expect(regularFile(join(root, "none.json"))).toEqual({
    ok: false,
    missing: true,
    reason: `no file at ${join(root, "none.json")}`,
  });
  expect(regularFile(join(root, "link.json"))).toMatchObject({
    ok: false,
    missing: false,
    reason: expect.stringContaining("is a symbolic link"),
  });
  expect(regularFile(join(root, "folder"))).toMatchObject({
    ok: false,
    missing: false,
    reason: `${join(root, "folder")} is not a regular file`,
  });
});

test("copyRegularFile copies with mode 0600, refuses a link and an existing target", async () => {
  const source = join(root, "auth.json");
  await writeFile(source, '{"token":"not-a-secret"}');
  const target = join(root, "copy.json");
  await copyRegularFile(source, target);
  expect(await readFile(target, "utf8")).toBe('{"token":"not-a-secret"}');
  if (process.platform !== "win32") expect((await stat(target)).mode & 0o777).toBe(0o600);
  await expect(copyRegularFile(source, target)).rejects.toThrow(/EEXIST/);
  await symlink(source, join(root, "link.json"));
  await expect(copyRegularFile(join(root, "link.json"), join(root, "other.json"))).rejects.toThrow(
    /ELOOP|not a regular file/,
  );
  await expect(stat(join(root, "other.json"))).rejects.toThrow(/ENOENT/);
});

test("homeEnvironment: the launch's variables, the agent's own on top, HOME the fresh home", () => {
  const env = homeEnvironment({ PATH: "/bin", HOME: "/host/home", KEY: "k" }, "/fresh/home", {
    AGENT_HOME: "/fresh/agent",
    KEY: "agent's",
  });
  expect(env).toEqual({
    PATH: "/bin",
    HOME: "/fresh/home",
    KEY: "agent's",
    AGENT_HOME: "/fresh/agent",
    ...(process.platform === "win32" ? { USERPROFILE: "/fresh/home" } : {}),
  });
  expect(homeEnvironment({}, "/h", { HOME: "/not/this" }).HOME).toBe("/h");
});
