// The reporter scrubs every session it writes by value, whole: a secret can reach a session
// record by a field the worker does not scrub (a tool's description in the catalog a server
// listed, a test name that quotes it). With the credential's variable set in the reporter's
// environment, report.html, report.json, blob.json and the history hold only its name.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Reporter from "../dist/main/reporter";
import { sessionRecord } from "./support/blobs";
import { removeTempDir } from "./support/user-project";

const VALUE = "catalog-secret-value-91be0d";
const VARIABLE = "M3_REPORT_TEST_API_KEY";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-secret-values-"));
});
afterEach(() => removeTempDir(project));

test("a secret in a session's catalog or test name is in no report, blob or history", async () => {
  const run = join(project, ".m3", "runs", "r1");
  mkdirSync(join(run, "executions"), { recursive: true });
  const testName = `quotes ${VALUE}`;
  const session = sessionRecord({
    testPath: join(project, "a.test.ts"),
    testName,
    executionId: "e1",
    sessionId: "s1",
    provider: null,
    catalogs: [
      {
        server: "shipping",
        tools: [
          { name: "shipping_quote", schemaHash: "0123456789abcdef", description: `key ${VALUE}` },
        ],
      },
    ],
  });
  writeFileSync(join(run, "executions", "1.jsonl"), `${JSON.stringify(session)}\n`);

  const saved = { dir: process.env.M3_RUN_DIR, key: process.env[VARIABLE] };
  process.env.M3_RUN_DIR = run;
  process.env[VARIABLE] = VALUE;
  const write = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const M3Reporter = createRequire(__filename)("../dist/main/reporter.js") as typeof Reporter;
    const reporter = new M3Reporter({ rootDir: project });
    reporter.onTestResult(undefined, {
      testFilePath: join(project, "a.test.ts"),
      testResults: [{ fullName: testName, title: testName, status: "passed", failureMessages: [] }],
    });
    await reporter.onRunComplete(undefined, {
      numTotalTests: 1,
      numPassedTests: 1,
      numFailedTests: 0,
      success: true,
    });
  } finally {
    write.mockRestore();
    for (const [name, value] of [
      ["M3_RUN_DIR", saved.dir],
      [VARIABLE, saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }

  const files = ["report.html", "report.json", "blob.json"].map((name) => join(run, name));
  files.push(join(project, ".m3", "history.sqlite"));
  for (const file of files) {
    expect({ file, exists: existsSync(file) }).toEqual({ file, exists: true });
    expect({ file, holds: readFileSync(file).includes(VALUE) }).toEqual({ file, holds: false });
  }
  const json = readFileSync(join(run, "report.json"), "utf8");
  expect(json).toContain(`key [redacted: ${VARIABLE}]`);
  expect(json).toContain(`quotes [redacted: ${VARIABLE}]`);
});
