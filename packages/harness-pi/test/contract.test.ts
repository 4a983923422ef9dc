/**
 * The contract with the installed Pi: every flag, command and event field the adapter
 * relies on (PROTOCOL_SURFACE) is still there, seen in a real session's events, so a Pi
 * upgrade that renames a flag or reshapes an event fails here, naming what changed. Also
 * the tool-name rules: the model-facing names the bridge gives MCP tools (plain
 * `mcp__server__tool`, hashed when too long or when two tools would get the same name),
 * checked in what the model was offered.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import piHarness, {
  assignToolNames,
  hashedToolName,
  PROTOCOL_SURFACE,
  resolvePiExecutable,
  resolvePiOptions,
  piArgs,
  type PiSession,
} from "@jest-m3/harness-pi";
import { ledgerRule, useScriptedModel } from "@jest-m3/test-support";
import { ledgerServer, piLaunch, piSelection, shippingServer, turn } from "./support/pi";

jest.setTimeout(90_000);

type Event = { type: string; [key: string]: unknown };

function missingFields(event: Event | undefined, fields: readonly string[]): string[] {
  if (event === undefined) return ["(no such event)"];
  return fields.filter((field) => !(field in event));
}

const model = useScriptedModel({
  rules: [
    ledgerRule(["record_entry"], "Done."),
    { name: "nothing", when: { user: "nothing" }, steps: [{ reply: "Nothing to do." }] },
  ],
});
const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
afterAll(() => kit.close());

test("pi --help names every flag the adapter passes", async () => {
  const pi = resolvePiExecutable({}, {});
  if (!pi.found) throw new Error(pi.reason);
  const readiness = await piHarness.readiness({
    selection: piSelection(model.providerFor("responses")),
    config: {},
    credentialNames: [],
  });
  const node = readiness.capabilities.node?.reason?.match(/\((.+), from /)?.[1];
  expect(node).toBeDefined();
  const help = execFileSync(node!, [pi.path, "--help"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  expect(PROTOCOL_SURFACE.flags.filter((flag) => !help.includes(flag))).toEqual([]);
  // The adapter's command line uses only those flags.
  const args = piArgs(
    { model: "m", provider: model.providerFor("responses") },
    resolvePiOptions({ builtinTools: ["read"] }),
    "bridge.js",
  );
  const flags = args.filter((arg) => arg.startsWith("--"));
  expect(
    flags.filter((flag) => !(PROTOCOL_SURFACE.flags as readonly string[]).includes(flag)),
  ).toEqual([]);
});

test("a real turn's events have every field the adapter reads", async () => {
  const { launch, capture } = await piLaunch(
    kit,
    piSelection(model.providerFor("responses")),
    [ledgerServer(join(await kit.tempDir("m3-log-"), "ledger.jsonl"))],
    ["ledger:record_entry"],
  );
  const session = (await piHarness.open(launch)) as PiSession;
  try {
    const result = await turn(session, capture, "t1", "ledger please");
    expect(result.outcome).toBe("completed");
    const events = result.events as Event[];
    for (const [type, fields] of Object.entries(PROTOCOL_SURFACE.events)) {
      expect([
        type,
        missingFields(
          events.find((event) => event.type === type),
          fields,
        ),
      ]).toEqual([type, []]);
    }
    const end = events.find((event) => event.type === "tool_execution_end") as
      { result: { details: unknown } } | undefined;
    expect(end?.result.details).toEqual({
      server: "ledger",
      tool: "record_entry",
      content: [{ type: "text", text: "recorded #1" }],
      structuredContent: null,
    });
    expect(result.toolCalls.map((call) => [call.id, call.server, call.tool, call.status])).toEqual([
      [expect.stringMatching(/.+/), "ledger", "record_entry", "success"],
    ]);
    // The call id is the model's own (over the Responses API Pi joins call id and item id
    // with "|"): it joins with the provider's journal.
    const decisions = JSON.stringify(model.journal.entries.map((entry) => entry.decision));
    expect(decisions).toContain(`"callId":"${result.toolCalls[0]!.id!.split("|")[0]}"`);
  } finally {
    await session.close();
  }
});

test("tool names: plain unless too long or colliding, then hashed; colliding servers are both offered", async () => {
  const names = assignToolNames([
    { server: "ship.a", tool: "shipping_quote" },
    { server: "ship_a", tool: "shipping_quote" },
    { server: "ledger", tool: "x".repeat(70) },
    { server: "ledger", tool: "record_entry" },
  ]);
  expect([...names.keys()]).toEqual([
    hashedToolName("ship.a", "shipping_quote"),
    hashedToolName("ship_a", "shipping_quote"),
    hashedToolName("ledger", "x".repeat(70)),
    "mcp__ledger__record_entry",
  ]);
  for (const name of names.keys()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  expect(new Set(names.keys()).size).toBe(4);

  // In a real session: two servers whose names collide once sanitized are both offered,
  // under distinct names the bridge maps back to each server.
  const logs = await kit.tempDir("m3-log-");
  const { launch, capture } = await piLaunch(kit, piSelection(model.providerFor("responses")), [
    shippingServer(join(logs, "a.jsonl"), "ship.a"),
    shippingServer(join(logs, "b.jsonl"), "ship_a"),
  ]);
  const before = model.journal.entries.length;
  const session = (await piHarness.open(launch)) as PiSession;
  try {
    const result = await turn(session, capture, "t1", "nothing please");
    expect(result.outcome).toBe("completed");
    const body = model.journal.entries[before]?.body as { tools?: { name?: string }[] };
    expect((body.tools ?? []).map((tool) => tool.name).sort()).toEqual(
      [
        hashedToolName("ship.a", "shipping_quote"),
        hashedToolName("ship_a", "shipping_quote"),
      ].sort(),
    );
  } finally {
    await session.close();
  }
});
