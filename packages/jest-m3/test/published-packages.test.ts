// Every package as npm would publish it: `npm pack` of each workspace package, unpacked.
// No prebuilt binary in any tarball (a binary built here cannot run on another platform;
// the native relay is built at install time, or the Node relay serves); a README that says
// what the package is, how to install it, one example and where the documentation is; the
// fields npm shows on the package's page. The core README's example then runs for real
// against the unpacked core, with a real MCP server; and the unpacked packages, laid out as
// an install with install scripts off leaves them (no native relay built), run an agent
// test green with real Codex on the Node relay, which says so once.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  closeSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import ts from "typescript";
import { callRule } from "@jest-m3/test-support";
import { REPO, removeTempDir, runJest, SHIPPING_SERVER } from "./support/user-project";

const PACKAGES = readdirSync(join(REPO, "packages"))
  .filter((dir) => existsSync(join(REPO, "packages", dir, "package.json")))
  .filter(
    (dir) =>
      (
        JSON.parse(readFileSync(join(REPO, "packages", dir, "package.json"), "utf8")) as {
          private?: boolean;
        }
      ).private !== true,
  );

let root: string;
const unpacked = new Map<string, string>();

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "m3-published-"));
  for (const dir of PACKAGES) {
    const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", root], {
      cwd: join(REPO, "packages", dir),
      encoding: "utf8",
      timeout: 120_000,
    });
    if (pack.status !== 0) throw new Error(`npm pack in packages/${dir} failed:\n${pack.stderr}`);
    const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
    const into = join(root, "unpacked", dir);
    mkdirSync(into, { recursive: true });
    const untar = spawnSync("tar", ["-xzf", join(root, filename), "-C", into], {
      encoding: "utf8",
    });
    if (untar.status !== 0) throw new Error(`tar -xzf ${filename}: ${untar.stderr}`);
    unpacked.set(dir, join(into, "package"));
  }
}, 600_000);
afterAll(() => removeTempDir(root));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** What kind of executable binary a file is, by its first bytes, or null. */
function binaryKind(file: string): string | null {
  if (statSync(file).size < 4) return null;
  const head = Buffer.alloc(4);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  const magic = head.readUInt32BE(0);
  if (magic === 0x7f454c46) return "ELF";
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)) return "Mach-O";
  if (head.subarray(0, 2).toString("latin1") === "MZ") return "PE";
  return null;
}

describe.each(PACKAGES)("packages/%s as npm publishes it", (dir) => {
  test("carries no prebuilt binary", () => {
    const packed = unpacked.get(dir)!;
    const binaries = filesUnder(packed)
      .map((file) => ({ file: relative(packed, file), kind: binaryKind(file) }))
      .filter((entry) => entry.kind !== null);
    expect(binaries).toEqual([]);
  });

  test("has a README: what it is, how to install it, one example, where the docs are", () => {
    const packed = unpacked.get(dir)!;
    const manifest = JSON.parse(readFileSync(join(packed, "package.json"), "utf8")) as {
      name: string;
    };
    const readme = join(packed, "README.md");
    expect(existsSync(readme)).toBe(true);
    const text = readFileSync(readme, "utf8");
    expect(text.startsWith(`# ${manifest.name}\n`)).toBe(true);
    expect(text).toMatch(new RegExp(`npm install[^\\n]* ${manifest.name.replace("/", "\\/")}`));
    expect(text).toMatch(/```ts\n[\s\S]+?\n```/);
    expect(text).toMatch(/\]\(https:\/\/[^)]+\)/);
  });

  test("has the fields npm shows: description, repository, homepage, keywords, license", () => {
    const manifest = JSON.parse(
      readFileSync(join(unpacked.get(dir)!, "package.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(manifest).toEqual(
      expect.objectContaining({
        description: expect.stringMatching(/\S{3}/),
        repository: expect.objectContaining({
          type: "git",
          url: expect.stringMatching(/^git\+https:\/\//),
          directory: `packages/${dir}`,
        }),
        homepage: expect.stringMatching(/^https:\/\//),
        keywords: expect.arrayContaining([expect.any(String)]),
        license: "MIT",
      }),
    );
  });
});

test("the packed core carries the relay's C source (built at install time), not a binary", () => {
  const core = unpacked.get("core")!;
  expect(existsSync(join(core, "src", "wire", "native", "stdio-relay.c"))).toBe(true);
  expect(existsSync(join(core, "src", "wire", "native", "build-relay.cjs"))).toBe(true);
  expect(existsSync(join(core, "dist", "wire", "native"))).toBe(false);
});

test("the core README's example runs against the packed core and a real server", () => {
  const core = unpacked.get("core")!;
  const readme = readFileSync(join(core, "README.md"), "utf8");
  const example = /```ts\n([\s\S]+?)\n```/.exec(readme)![1]!;
  // A user's folder: the packed core and its dependencies in node_modules, the server beside.
  const project = join(root, "core-user");
  mkdirSync(join(project, "node_modules", "@jest-m3"), { recursive: true });
  symlinkSync(core, join(project, "node_modules", "@jest-m3", "core"));
  const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(root, "node_modules", name);
    mkdirSync(join(link, ".."), { recursive: true });
    if (!existsSync(link)) symlinkSync(join(REPO, "node_modules", name), link);
  }
  copyFileSync(SHIPPING_SERVER, join(project, "shipping-server.mjs"));
  const js = ts.transpileModule(example, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts", "lib.esnext.disposable.d.ts"],
    },
  }).outputText;
  writeFileSync(join(project, "example.js"), js);
  const run = spawnSync(process.execPath, ["example.js"], {
    cwd: project,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: "" });
  expect(run.stdout).toBe('{"amount":9,"currency":"USD"}\nshipping_quote success\n');
});

/** Links `name` from this repository's node_modules into `modules`, once. */
function linkInstalled(modules: string, name: string): void {
  const link = join(modules, name);
  if (existsSync(link)) return;
  mkdirSync(join(link, ".."), { recursive: true });
  symlinkSync(join(REPO, "node_modules", name), link);
}

const AGENT_TEST = `import { MCPTestKit, expect } from "jest-m3";

test("Codex quotes through the packed packages", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const result = await agent!.run("Quote weight_kg 2 in zone local.", {
    server: { name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] },
    tools: ["shipping:shipping_quote"],
    timeout: 120_000,
  });
  expect(result).toBeCompleted();
  expect(result).toHaveToolCall("shipping_quote", {
    server: "shipping",
    arguments: { weight_kg: 2, zone: "local" },
    status: "success",
    count: 1,
  });
});
`;

test("installed from the tarballs with install scripts off: an agent test is green on the Node relay", () => {
  const project = join(root, "agent-user");
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "@jest-m3"), { recursive: true });
  const ours = ["core", "scripted-model", "jest-m3", "harness-codex"];
  for (const dir of ours) {
    const manifest = JSON.parse(readFileSync(join(unpacked.get(dir)!, "package.json"), "utf8")) as {
      name: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    symlinkSync(unpacked.get(dir)!, join(modules, manifest.name));
    // The unpacked packages resolve their dependencies from the folder above them.
    for (const name of [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]) {
      if (!name.startsWith("@jest-m3/")) linkInstalled(join(root, "node_modules"), name);
    }
  }
  for (const name of ["jest", "typescript"]) linkInstalled(modules, name);
  for (const dir of ours) {
    const own = join(root, "unpacked", dir, "node_modules");
    if (!existsSync(own)) symlinkSync(modules, own);
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "agent-user" }));
  writeFileSync(join(project, "jest.config.js"), 'module.exports = { preset: "jest-m3" };\n');
  writeFileSync(
    join(project, "m3.config.json"),
    JSON.stringify({ harnesses: ["codex"], scriptedModel: { script: "script.json" } }),
  );
  writeFileSync(
    join(project, "script.json"),
    JSON.stringify({
      rules: [
        callRule(
          { regex: "weight_kg 2 in zone local" },
          "shipping:shipping_quote",
          { weight_kg: 2, zone: "local" },
          "9 USD.",
          "quote",
        ),
      ],
    }),
  );
  writeFileSync(join(project, "quote.test.ts"), AGENT_TEST);
  const run = runJest(project, { env: { M3_STDIO_RELAY: "" }, timeoutMs: 240_000 });
  expect({ status: run.status, tail: run.output.slice(-2000) }).toMatchObject({ status: 0 });
  expect(run.output).toMatch(/Tests: +1 passed, 1 total/);
  const notice = "jest-m3: stdio servers run behind the Node relay: the native relay was not built";
  expect(run.output.split(notice).length - 1).toBe(1);
}, 300_000);
