// docs/matchers.md cannot rot: every `ts` example in it runs here, against real sessions
// (the test harness makes real MCP calls through the wire capture). An example followed by
// a `text` block must fail with exactly that message (durations aside); any other example
// must pass.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ExecutionOutcome,
  MCPTestKit,
  expect,
  type ExecutionResult,
  type Readiness,
  type StdioServer,
  type TurnResult,
} from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";

const repo = join(__dirname, "..", "..", "..");
const shipping: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(repo, "examples", "shipping", "shipping-server.mjs")],
};
const quoteLine = (weight: number, zone: string) =>
  `call shipping:shipping_quote ${JSON.stringify({ weight_kg: weight, zone })}`;

interface Example {
  readonly section: string;
  readonly code: string;
  readonly failure: string | null;
}

/** Every `ts` block of the page, with the `text` block right after it, if any. */
function examples(): Example[] {
  const page = readFileSync(join(repo, "docs", "matchers.md"), "utf8");
  const out: Example[] = [];
  let section = "";
  const pattern = /^## (.+)$|```ts\n([\s\S]*?)```\n(?:\n```text\n([\s\S]*?)```\n)?/gm;
  for (let match = pattern.exec(page); match; match = pattern.exec(page)) {
    if (match[1] !== undefined) section = match[1];
    else if (!match[2]!.startsWith("import "))
      out.push({ section, code: match[2]!, failure: match[3]?.trimEnd() ?? null });
  }
  return out;
}

/** Timings vary from run to run: the page shows them as they came out once. */
const steady = (text: string): string =>
  text
    .replace(/\d+ ms\b/g, "N ms")
    .replace(/\bpid \d+/g, "pid N")
    .replace(/^(\d+\.) \([^()]+:\d+:\d+\)/gm, "$1 (line)");

const strip = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/\u001b\[[0-9;]*m/g, "");

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<unknown>;

describe("docs/matchers.md", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const scope: Record<string, unknown> = { expect, ExecutionOutcome };
  beforeAll(async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
    await session.open();
    const first: TurnResult = await session.send(
      `${quoteLine(2, "local")}\nreply Your quote is 9 USD.`,
    );
    const second: TurnResult = await session.send(
      `${quoteLine(3, "regional")}\n${quoteLine(1, "mars")}\nreply 15.5 USD`,
    );
    await session.close();
    const result: ExecutionResult = session.result;

    // A session whose harness also reported a call the wire never saw.
    const other = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
    await other.open();
    await other.send(
      `${quoteLine(2, "local")}\nreport-only shipping:shipping_quote {"weight_kg":5,"zone":"local"}\nreply done`,
    );
    await other.close();

    const readiness: Readiness = await agent!.readiness();
    const client = kit.direct(shipping);
    const quote = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    const refused = await client.callTool("shipping_quote", { weight_kg: 0, zone: "local" });
    await client.close();
    Object.assign(scope, {
      result,
      first,
      second,
      claimed: other.result,
      readiness,
      client,
      quote,
      refused,
    });
  });
  afterAll(() => kit.close());

  const all = examples();
  const dump: Record<string, string> = {};
  afterAll(() => {
    if (process.env.M3_DOCS_DUMP)
      writeFileSync(process.env.M3_DOCS_DUMP, JSON.stringify(dump, null, 2));
  });

  test("the page has examples, and failures for them", () => {
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter((example) => example.failure !== null).length).toBeGreaterThan(15);
  });

  test.each(all.map((example) => [`${example.section}: ${example.code.split("\n")[0]}`, example]))(
    "%s",
    async (_name, example) => {
      const { code, failure } = example as Example;
      const run = new AsyncFunction(...Object.keys(scope), code);
      let message: string | null = null;
      try {
        await run(...Object.values(scope));
      } catch (error) {
        message = strip((error as Error).message);
      }
      dump[code] = message ?? "(passed)";
      if (failure === null) expect(message).toBeNull();
      else expect(steady(message ?? "(the example passed)")).toBe(steady(failure));
    },
  );
});
