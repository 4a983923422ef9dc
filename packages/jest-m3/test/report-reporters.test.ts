// A user's own `reporters` (which replace the preset's) keep jest-m3's reporter, and a
// JUnit-style reporter next to it gets the agent transcript in the failure body and the
// jest-m3 properties of each test (the module jest-junit's testCasePropertiesFile loads).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeUserProject,
  REPO,
  removeTempDir,
  runFolder,
  runJest,
  oneTurnTestSource,
  TEST_FILE_IMPORTS,
} from "./support/user-project";

const PROPERTIES = join(REPO, "packages", "jest-m3", "dist", "report", "junit-properties.js");

// What jest-junit does with the results, in a few lines: one entry per test case, its
// failure messages as the <failure> body, properties from testCasePropertiesFile.
const JUNIT_LIKE = `
const { writeFileSync } = require("node:fs");
const properties = require(${JSON.stringify(PROPERTIES)});
module.exports = class JunitLike {
  onRunComplete(_contexts, results) {
    const cases = results.testResults.flatMap((file) =>
      file.testResults.map((tc) => ({ name: tc.fullName, status: tc.status, failures: tc.failureMessages, properties: properties(tc) })));
    writeFileSync(__dirname + "/junit-like.json", JSON.stringify(cases, null, 2));
  }
};
`;

const agentTest = (name: string, zone: string) =>
  oneTurnTestSource(
    JSON.stringify(name),
    JSON.stringify(
      'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply The quote is 9 USD.',
    ),
    `expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: ${JSON.stringify(zone)} } });`,
  );

interface JunitCase {
  name: string;
  status: string;
  failures: string[];
  properties: Record<string, string>;
}

let project: string | undefined;
afterAll(() => removeTempDir(project));

test('reporters: ["default", "<junit-like>"] keeps jest-m3\'s reporter; JUnit gets transcripts and properties', () => {
  project = makeUserProject({
    "jest.config.js":
      'module.exports = { preset: "jest-m3", reporters: ["default", "<rootDir>/junit-like.js"] };\n',
    "junit-like.js": JUNIT_LIKE,
    "agent.test.ts": `
${TEST_FILE_IMPORTS}${agentTest("quotes local", "local")}
${agentTest("quotes the wrong zone", "regional")}
test("plain", () => expect(1).toBe(1));
`,
  });
  const run = runJest(project, { timeoutMs: 150_000 });
  expect(run.status).toBe(1);
  // jest-m3's reporter ran although the user's reporters left it out.
  expect(run.output).toContain("quotes the wrong zone — what the agent did");
  expect(existsSync(join(runFolder(project), "report.html"))).toBe(true);

  const cases = JSON.parse(readFileSync(join(project, "junit-like.json"), "utf8")) as JunitCase[];
  const byName = new Map(cases.map((entry) => [entry.name, entry]));
  const failed = byName.get("quotes the wrong zone")!;
  expect(failed.status).toBe("failed");
  expect(failed.failures.at(-1)).toContain("What the agent did:");
  expect(failed.failures.at(-1)).toContain(
    'tool call: shipping:shipping_quote {"weight_kg":2,"zone":"local"} → success (both evidence)',
  );
  expect(failed.properties).toEqual({
    "m3.agent": "test 1.0.0 scripted-1",
    "m3.passRate": "0/1 (0%)",
    "m3.calls": "1",
    "m3.sessions": "1",
  });
  expect(byName.get("quotes local")!.properties["m3.passRate"]).toBe("1/1 (100%)");
  expect(byName.get("quotes local")!.failures).toEqual([]);
  expect(byName.get("plain")!.properties).toEqual({});
}, 180_000);
