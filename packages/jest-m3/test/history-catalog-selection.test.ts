// The history of real runs of a user's project (child Jest, preset "jest-m3"): a real Codex
// session (the preset's scripted model behind the provider tap) against a real MCP server
// whose tool description the run sets, and a plain test. Three runs: the whole suite, one
// file, the whole suite again with a longer description (m3.config.json keeps 2 run folders).
// `jest-m3 diff` compares the last run with the first (like with like, not the one-file run),
// lists the catalog as dearer on Codex (a regression, exit 1) and its description as changed;
// the one-file run has no baseline of its selection (exit 2, saying how to name one); the
// runs folder holds the newest two runs while the history holds all three.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { queryRows } from "../dist/store/engine";
import { readHistory } from "../dist/store/history";
import { quoteRule } from "@jest-m3/test-support";
import { runCli } from "./support/cli";
import { makeUserProject, removeTempDir, runJest } from "./support/user-project";

const SERVER = join(__dirname, "fixtures", "described-quote-server.mjs");
const SHORT = "Quote a parcel.";
const LONG = `${SHORT} Weight in kilograms, zone local or regional; returns an amount in USD, rounded to cents, for one parcel.`;

const script = JSON.stringify({ rules: [quoteRule()] });

const quoteTest = `
import { MCPTestKit, expect } from "jest-m3";

test("quotes a parcel", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const result = await agent!.run("Please quote one parcel.", {
    server: {
      name: "shipping",
      command: process.execPath,
      args: [${JSON.stringify(SERVER)}],
      env: { QUOTE_DESCRIPTION: process.env.QUOTE_DESCRIPTION! },
    },
    timeout: 90_000,
  });
  expect(result).toHaveToolCall("shipping_quote", { status: "success" });
});
`;

const plainTest = `
import { MCPTestKit } from "jest-m3";
test("a plain test", () => {
  expect(typeof MCPTestKit).toBe("function");
});
`;

let project: string | undefined;
afterAll(() => removeTempDir(project));

const cli = (...argv: string[]) => runCli(project!, ...argv);

/** One child Jest run with the tool described as `description`; returns its run id. */
function run(description: string, args: string[] = []): string {
  const result = runJest(project!, {
    args,
    env: { QUOTE_DESCRIPTION: description },
    timeoutMs: 240_000,
  });
  expect(result.output).toMatch(/Tests: +\d+ passed, \d+ total/);
  expect(result.status).toBe(0);
  expect(result.output).toContain("jest-m3: run recorded in");
  return /runs[/\\]([^/\\\s]+)[/\\]report\.html/.exec(result.output)![1]!;
}

test("diff compares like with like, lists a dearer catalog and its description; old run folders pruned", async () => {
  project = makeUserProject({
    "m3.config.json": JSON.stringify({
      harnesses: ["codex"],
      scriptedModel: { script: "model-script.json" },
      keepRuns: 2,
    }),
    "model-script.json": script,
    "quote.test.ts": quoteTest,
    "plain.test.ts": plainTest,
  });
  const first = run(SHORT);
  const oneFile = run(LONG, ["plain.test.ts"]);
  const last = run(LONG);

  // Retention: the newest two run folders; the history keeps every run, with its selection.
  expect(readdirSync(join(project, ".m3", "runs")).sort()).toEqual([oneFile, last].sort());
  const db = await readHistory(join(project, ".m3", "history.sqlite"));
  let costs: Array<Record<string, unknown>>;
  try {
    expect(queryRows(db, "SELECT id, selection_label, partial FROM runs ORDER BY seq")).toEqual([
      { id: first, selection_label: "the whole suite", partial: 0 },
      { id: oneFile, selection_label: "files matching plain.test.ts", partial: 0 },
      { id: last, selection_label: "the whole suite", partial: 0 },
    ]);
    costs = queryRows(
      db,
      "SELECT run_id, server, harness, model, bytes FROM catalog_costs ORDER BY run_id",
    );
  } finally {
    db.close();
  }
  // Ground truth: the longer description costs exactly its extra bytes in what Codex sent.
  const cost = (id: string): number => Number(costs.find((row) => row.run_id === id)!.bytes);
  expect(costs.map((row) => [row.server, row.harness, row.model])).toEqual([
    ["shipping", "codex", "gpt-5.5"],
    ["shipping", "codex", "gpt-5.5"],
  ]);
  expect(cost(last) - cost(first)).toBe(Buffer.byteLength(LONG) - Buffer.byteLength(SHORT));

  const diff = await cli("diff");
  expect(diff.code).toBe(1);
  expect(diff.out).toContain(`jest-m3 diff: ${first} (green) → ${last} (green)`);
  expect(diff.out).not.toContain("Note:");
  expect(diff.out).not.toContain("New tests");
  expect(diff.out).toContain("shipping: ~ shipping_quote (description changed)");
  const ratio = (cost(last) / cost(first)).toFixed(2);
  expect(diff.out).toContain(`  grew    ${cost(first)} → ${cost(last)} bytes (×${ratio}; about`);
  expect(diff.out).toContain(
    `catalog dearer: shipping on codex · gpt-5.5 ${cost(first)} → ${cost(last)} bytes (×${ratio}, the limit is ×1.10)`,
  );
  // A looser ratio: listed no more, and nothing else regressed.
  const loose = await cli("diff", "--catalog-growth", String(Number(ratio) + 0.5));
  expect(loose.out).not.toContain("catalog dearer");
  expect(loose.code).toBe(0);

  const lone = await cli("diff", oneFile);
  expect(lone.code).toBe(2);
  expect(lone.err).toContain(
    `No run of the same selection (files matching plain.test.ts), complete, before ${oneFile} in the history.`,
  );
  expect(lone.err).toContain("--baseline <run id>");
  const named = await cli("diff", oneFile, "--baseline", first);
  expect(named.out).toContain(
    `Note: the baseline ${first} ran another selection (the whole suite) than ${oneFile} (files matching plain.test.ts)`,
  );
});
