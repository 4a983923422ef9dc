/**
 * The protocol contract: the schema printed by the installed Codex binary still has every
 * method, notification and field the adapter uses. A Codex upgrade that renames or drops
 * one fails here, loudly, instead of in a session.
 */
import { APP_SERVER_ARGS as BENCH_APP_SERVER_ARGS } from "../../../bench/app-server-driver";
import { APP_SERVER_ARGS } from "../src/config";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROTOCOL_SURFACE, resolveCodexExecutable } from "@jest-m3/harness-codex";

type Schema = { [key: string]: unknown };

let root: string;
let definitions: Schema;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A definition by name, or by `#/definitions/...` reference (v2 definitions are nested). */
function definition(nameOrRef: string): Schema {
  const path = nameOrRef.replace(/^#\/definitions\//, "").split("/");
  let node: unknown = definitions;
  for (const part of path) node = isSchema(node) ? node[part] : undefined;
  if (!isSchema(node) && path.length === 1) {
    node = isSchema(definitions.v2) ? definitions.v2[nameOrRef] : undefined;
  }
  if (!isSchema(node)) throw new Error(`The schema has no definition ${nameOrRef}.`);
  return node;
}

/** Every alternative of a node, with references followed. */
function variants(node: Schema): Schema[] {
  if (typeof node.$ref === "string") return variants(definition(node.$ref));
  const nested = ["oneOf", "anyOf", "allOf"].flatMap((key) =>
    Array.isArray(node[key]) ? (node[key] as unknown[]).filter(isSchema) : [],
  );
  return [node, ...nested.flatMap(variants)];
}

/** The property names a node (or any of its alternatives) declares. */
function properties(node: Schema): Set<string> {
  const names = new Set<string>();
  for (const variant of variants(node)) {
    if (isSchema(variant.properties))
      for (const name of Object.keys(variant.properties)) names.add(name);
  }
  return names;
}

/** The schema of one property of a node, references followed. */
function property(node: Schema, name: string): Schema {
  for (const variant of variants(node)) {
    const found = isSchema(variant.properties) ? variant.properties[name] : undefined;
    if (isSchema(found)) return found;
  }
  throw new Error(`No property ${name}.`);
}

/** Every enum value a node (or its alternatives) allows. */
function enumValues(node: Schema): Set<unknown> {
  return new Set(
    variants(node).flatMap((variant) => (Array.isArray(variant.enum) ? variant.enum : [])),
  );
}

/** The methods of a `oneOf` message union (ClientRequest, ServerNotification, ...). */
function methods(union: string): Map<string, Schema> {
  const found = new Map<string, Schema>();
  for (const variant of variants(definition(union))) {
    if (!isSchema(variant.properties)) continue;
    const method = variant.properties.method;
    if (!isSchema(method)) continue;
    for (const name of enumValues(method)) {
      const params = variant.properties.params;
      found.set(String(name), isSchema(params) ? params : {});
    }
  }
  return found;
}

/** The ThreadItem variant with `type` equal to `type`. */
function threadItem(type: string): Schema {
  const variant = variants(definition("ThreadItem")).find(
    (entry) => isSchema(entry.properties) && enumValues(property(entry, "type")).has(type),
  );
  if (!variant) throw new Error(`ThreadItem has no ${type} variant.`);
  return variant;
}

function expectAll(actual: Set<unknown> | Map<string, unknown>, expected: readonly string[]): void {
  const have = new Set(actual.keys());
  expect(expected.filter((name) => !have.has(name))).toEqual([]);
}

beforeAll(() => {
  const codex = resolveCodexExecutable({}, {});
  if (!codex.found) throw new Error(codex.reason);
  root = mkdtempSync(join(tmpdir(), "m3-codex-schema-"));
  const out = join(root, "schema");
  execFileSync(codex.path, ["app-server", "generate-json-schema", "--out", out], {
    env: { PATH: process.env.PATH ?? "", CODEX_HOME: root, HOME: root },
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 30_000,
  });
  const bundle = JSON.parse(
    readFileSync(join(out, "codex_app_server_protocol.schemas.json"), "utf8"),
  ) as Schema;
  if (!isSchema(bundle.definitions)) throw new Error("The schema bundle has no definitions.");
  definitions = bundle.definitions;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the installed Codex's app-server protocol still fits the adapter", () => {
  test("every method, notification and server request the adapter uses exists", () => {
    expectAll(methods("ClientRequest"), PROTOCOL_SURFACE.clientRequests);
    expectAll(methods("ClientNotification"), PROTOCOL_SURFACE.clientNotifications);
    expectAll(methods("ServerNotification"), PROTOCOL_SURFACE.serverNotifications);
    expectAll(methods("ServerRequest"), PROTOCOL_SURFACE.serverRequests);
  });

  test("initialize and thread/start take the fields the adapter sends", () => {
    const requests = methods("ClientRequest");
    const initialize = requests.get("initialize") as Schema;
    expectAll(properties(initialize), ["clientInfo", "capabilities"]);
    expectAll(properties(property(initialize, "clientInfo")), ["name", "title", "version"]);
    expectAll(properties(property(initialize, "capabilities")), ["experimentalApi"]);

    const start = requests.get("thread/start") as Schema;
    expectAll(properties(start), [
      "cwd",
      "approvalPolicy",
      "sandbox",
      "model",
      "modelProvider",
      "config",
      "ephemeral",
    ]);
    expect(enumValues(property(start, "approvalPolicy")).has("on-request")).toBe(true);
    expectAll(enumValues(property(start, "sandbox")), ["read-only", "workspace-write"]);
    expectAll(properties(property(definition("ThreadStartResponse"), "thread")), ["id"]);
  });

  test("turn/start, turn/interrupt and the turn they describe", () => {
    const requests = methods("ClientRequest");
    const start = requests.get("turn/start") as Schema;
    expectAll(properties(start), ["threadId", "input"]);
    const input = property(start, "input");
    const text = variants(definition(String((input.items as Schema).$ref))).find(
      (variant) =>
        isSchema(variant.properties) && enumValues(property(variant, "type")).has("text"),
    );
    expect(text && [...properties(text)]).toEqual(
      expect.arrayContaining(["type", "text", "text_elements"]),
    );
    expectAll(properties(requests.get("turn/interrupt") as Schema), ["threadId", "turnId"]);

    const turn = property(definition("TurnStartResponse"), "turn");
    expectAll(properties(turn), ["id", "status", "error"]);
    expectAll(enumValues(property(turn, "status")), ["completed", "interrupted", "failed"]);
    expectAll(properties(definition("TurnError")), ["message", "additionalDetails"]);
  });

  test("the notifications carry the fields the adapter reads", () => {
    const notifications = methods("ServerNotification");
    const startup = notifications.get("mcpServer/startupStatus/updated") as Schema;
    expectAll(properties(startup), ["threadId", "name", "status", "error"]);
    expectAll(enumValues(property(startup, "status")), [
      "starting",
      "ready",
      "failed",
      "cancelled",
    ]);
    expectAll(properties(notifications.get("turn/completed") as Schema), ["threadId", "turn"]);
    expectAll(properties(notifications.get("error") as Schema), [
      "threadId",
      "turnId",
      "willRetry",
      "error",
    ]);
    for (const method of ["item/started", "item/completed"]) {
      expectAll(properties(notifications.get(method) as Schema), ["threadId", "turnId", "item"]);
    }
    expectAll(properties(notifications.get("warning") as Schema), ["message"]);
    expectAll(properties(notifications.get("configWarning") as Schema), ["summary"]);
  });

  test("mcpToolCall and agentMessage items have the fields reported as evidence", () => {
    const call = threadItem("mcpToolCall");
    expectAll(properties(call), ["id", "server", "tool", "status", "arguments", "result", "error"]);
    expectAll(enumValues(property(call, "status")), ["inProgress", "completed", "failed"]);
    expectAll(properties(definition("McpToolCallResult")), [
      "content",
      "structuredContent",
      "_meta",
    ]);
    expectAll(properties(definition("McpToolCallError")), ["message"]);
    expectAll(properties(threadItem("agentMessage")), ["id", "text"]);
  });

  test("the server requests are answered in shapes Codex accepts", () => {
    const requests = methods("ServerRequest");
    const elicitation = requests.get("mcpServer/elicitation/request") as Schema;
    expectAll(properties(elicitation), ["threadId", "turnId", "serverName", "message", "_meta"]);
    const answer = definition("McpServerElicitationRequestResponse");
    expectAll(properties(answer), ["action", "content", "_meta"]);
    expectAll(enumValues(property(answer, "action")), ["accept", "decline"]);

    expect(enumValues(definition("CommandExecutionApprovalDecision")).has("decline")).toBe(true);
    expect(enumValues(definition("FileChangeApprovalDecision")).has("decline")).toBe(true);
    expectAll(properties(property(definition("ReviewDecision"), "denied")), ["rejection"]);
    const permissions = definition("PermissionsRequestApprovalResponse");
    expectAll(properties(permissions), ["permissions", "scope"]);
    expect(enumValues(property(permissions, "scope")).has("turn")).toBe(true);
    expectAll(properties(definition("ToolRequestUserInputResponse")), ["answers"]);
  });
});

describe("the bench's bare driver", () => {
  // The bench compares the kit with a bare app-server driver; the comparison is fair only
  // while both start Codex the same way.
  test("starts codex app-server with exactly the adapter's flags", () => {
    expect([...BENCH_APP_SERVER_ARGS]).toEqual([...APP_SERVER_ARGS]);
  });
});
