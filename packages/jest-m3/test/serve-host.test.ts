// `jest-m3 show-report --serve` answers only requests addressed to the loopback name and
// port it bound to: a page on another origin that rebinds its DNS name to 127.0.0.1 sends
// its own Host header, and must not read the report (DNS rebinding).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { makeUserProject, REPO, removeTempDir } from "./support/user-project";

const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");
const PAGE = "<!doctype html><title>the report</title><p>report body 7d1c</p>\n";

let project: string | undefined;
let server: ChildProcess | undefined;
let closed: Promise<unknown> | undefined;
let port = 0;

beforeAll(async () => {
  project = makeUserProject({});
  const run = join(project, ".m3", "runs", "2026-01-01T00-00-00-000Z-abc123");
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, "report.html"), PAGE);
  server = spawn(process.execPath, [CLI, "show-report", "--serve"], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  closed = new Promise((resolve) => server!.once("close", resolve));
  let stdout = "";
  server.stdout!.setEncoding("utf8");
  port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address in ${stdout}`)), 20_000);
    server!.stdout!.on("data", (chunk: string) => {
      stdout += chunk;
      const match = /Serving the report at http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
}, 30_000);

afterAll(async () => {
  // Waited for: a child still unreaped when the file ends keeps Jest's worker alive.
  if (server && server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
  await closed;
  removeTempDir(project);
});

/** A GET of `path` to the served port with exactly `host` as its Host header. */
function get(host: string, path = "/"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: "127.0.0.1", port, path, method: "GET", headers: { host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.once("error", reject);
    outgoing.end();
  });
}

test("the loopback names of the bound port get the report", async () => {
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `LOCALHOST:${port}`,
    `[::1]:${port}`,
  ]) {
    const response = await get(host);
    expect({ host, status: response.status }).toEqual({ host, status: 200 });
    expect(response.body).toBe(PAGE);
  }
});

test("any other Host header is refused, and the report is not in the answer", async () => {
  const refused = [
    "evil.example",
    `evil.example:${port}`,
    "127.0.0.1", // no port: not the origin the server bound to
    `127.0.0.1:${port + 1}`,
    `localhost.evil.example:${port}`,
    `127.0.0.1.nip.io:${port}`,
    `[::1]:${port + 1}`,
  ];
  for (const host of refused) {
    const response = await get(host);
    expect({ host, status: response.status }).toEqual({ host, status: 421 });
    expect(response.body).not.toContain("report body 7d1c");
    expect(response.body).toMatch(/not served to Host/);
  }
  // The report path is refused the same way.
  expect((await get("evil.example", "/report.html")).status).toBe(421);
});
