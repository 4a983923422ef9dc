// The report's building blocks: data that cannot break out of its script element, secrets
// scrubbed by name and by value, verdicts and sessions outside tests.
import { buildRunReport, testId } from "../dist/report/build";
import { jsonForScript, renderReportHtml } from "../dist/report/html";
import { redactForReport, scrubText, secretValuesOf } from "../dist/shared/redact";
import { ensureM3Reporter, M3_REPORTER_PATH } from "../dist/main/global-setup";
import type { TranscriptRecord } from "../dist/shared/transcript";

test("embedded data escapes every <, so a reply holding </script> stays data", () => {
  const json = jsonForScript({ reply: "</script><script>alert(1)</script><!--" });
  expect(json).not.toContain("<");
  expect(JSON.parse(json)).toEqual({ reply: "</script><script>alert(1)</script><!--" });
});

test("secrets: credential-named fields, variable values, JSON members and assignments", () => {
  const secrets = secretValuesOf({ MY_API_KEY: "sk-live-123456", HOME: "/home/me", TOKEN: "abc" });
  expect(secrets).toEqual([{ name: "MY_API_KEY", value: "sk-live-123456" }]); // too short: not scrubbed
  expect(scrubText("using sk-live-123456 now", secrets)).toBe("using [redacted: MY_API_KEY] now");
  expect(scrubText('{"api_token": "t-1", "zone":"local"}', [])).toBe(
    '{"api_token": "[redacted]", "zone":"local"}',
  );
  expect(scrubText("OPENAI_API_KEY=sk-abc ZONE=local", [])).toBe(
    "OPENAI_API_KEY=[redacted] ZONE=local",
  );
  expect(
    redactForReport(
      { headers: { Authorization: "Bearer x" }, note: "key sk-live-123456" },
      secrets,
    ),
  ).toEqual({ headers: { Authorization: "[redacted]" }, note: "key [redacted: MY_API_KEY]" });
});

test("verdicts, stable ids, and sessions outside any test", () => {
  const session = (testName: string): TranscriptRecord => ({
    testPath: "/p/a.test.ts",
    testName,
    executionId: "e",
    agent: "test:m",
    model: "m",
    sessionId: null,
    outcome: "completed",
    error: null,
    gaps: [],
    turns: [],
    outsideTurns: 0,
  });
  const report = buildRunReport({
    rootDir: "/p",
    run: null,
    files: [
      {
        testFilePath: "/p/a.test.ts",
        testResults: [
          { fullName: "x", title: "x", status: "passed", failureMessages: [] },
          { fullName: "y", title: "y", status: "pending" },
          {
            fullName: "z",
            title: "z",
            status: "failed",
            failureMessages: ["\u001b[31mboom\u001b[39m"],
          },
        ],
      },
    ],
    sessions: [session("x"), session("")],
    success: false,
    startedAt: null,
    secrets: [],
  });
  expect(report.tests.map((test) => [test.fullName, test.verdict, test.sessions.length])).toEqual([
    ["x", "passed", 1],
    ["y", "skipped", 0],
    ["z", "failed", 0],
    ["(a.test.ts: outside any test)", "passed", 1],
  ]);
  expect(report.tests[0]!.id).toBe(testId("a.test.ts", "x"));
  expect(report.tests[2]!.failureMessages).toEqual(["boom"]);
  expect(report.totals).toMatchObject({ tests: 4, passed: 2, failed: 1, skipped: 1, sessions: 2 });
  expect(renderReportHtml(report)).toContain('<script type="application/json" id="m3-data">');
});

test("ensureM3Reporter adds the reporter to a user's list once, and leaves a list that has it", () => {
  const reporters: Array<string | [string, unknown]> = [["default", {}]];
  expect(ensureM3Reporter({ rootDir: "/", reporters })).toBe("added");
  expect(reporters).toEqual([
    ["default", {}],
    [M3_REPORTER_PATH, {}],
  ]);
  expect(ensureM3Reporter({ rootDir: "/", reporters })).toBe("present");
  expect(reporters).toHaveLength(2);
  const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    expect(ensureM3Reporter({ rootDir: "/", reporters: Object.freeze([]) as never })).toBe(
      "cannot",
    );
    expect(warn.mock.calls[0]![0]).toContain('Add "jest-m3/dist/reporter.js" to your reporters');
  } finally {
    warn.mockRestore();
  }
});
