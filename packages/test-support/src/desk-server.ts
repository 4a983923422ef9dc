/**
 * The desk fixture of the elicitation tests (one per harness package): a real SDK server
 * (mockServer) whose `book` tool asks for input in the middle of the call, and the scripted
 * model's rule that calls it ("Please book asking seat,meal.").
 */
import type {
  AgentSelection,
  AgentSelectionInput,
  AgentSession,
  SessionOptions,
} from "@jest-m3/core";
import type { HarnessDefinition } from "@jest-m3/core/harness";
import { mockServer, type MockServer } from "@jest-m3/core/testing";
import type { Rule, ScriptedModel } from "@jest-m3/scripted-model";
import { perTestKitOn, type PerTest } from "./per-test";
import { callRule } from "./rules";

/** A desk server whose `book` tool asks for input and answers with what it got back. */
export function deskServer(): MockServer {
  return mockServer({
    name: "desk",
    tools: [
      {
        name: "book",
        inputSchema: { type: "object", properties: { ask: { type: "string" } } },
        handler: async ({ ask }, context) => {
          const questions = String(ask ?? "seat").split(",");
          const answers = [];
          for (const question of questions) {
            const reply =
              question === "login"
                ? await context.elicit({
                    mode: "url",
                    message: "Sign in to the desk",
                    url: "https://desk.example/login",
                    elicitationId: "login-1",
                  })
                : await context.elicit({
                    mode: "form",
                    message: `Which ${question}?`,
                    requestedSchema: {
                      type: "object",
                      properties: { [question]: { type: "string" } },
                      required: [question],
                    },
                  });
            answers.push(
              `${question}=${reply.action}${reply.content ? `:${JSON.stringify(reply.content)}` : ""}`,
            );
          }
          return `server got ${answers.join(" ")}`;
        },
      },
    ],
  });
}

/** The scripted model's rule: "book asking <questions>" calls desk:book and replies its result. */
export const BOOK_RULE: Rule = callRule(
  /book asking ([\w,]+)/,
  "desk:book",
  { ask: "{{match.1}}" },
  "{{result}}",
  "book",
);

/** What {@link deskPerTest} keeps for the running test. */
export interface DeskPerTest extends PerTest {
  /** This test's desk server. */
  readonly desk: MockServer;
  /** This test's agent: the selection `select` gives for the model, with `options` if given. */
  agent(options?: Record<string, unknown>): AgentSelection;
  /** A session of `agent` (default: {@link DeskPerTest.agent}) on the desk, 60 s a turn. */
  deskSession(
    elicitation?: SessionOptions["elicitation"],
    agent?: AgentSelection,
  ): Promise<AgentSession>;
}

/**
 * An elicitation test's set-up (call it at a describe block's top level): for each test a
 * scripted model playing {@link BOOK_RULE}, a kit with `harness` and a desk server, closed
 * after it with nothing left running; `select` is the harness's selection for the model.
 */
export function deskPerTest(
  harness: HarnessDefinition,
  select: (model: ScriptedModel) => AgentSelectionInput,
): DeskPerTest {
  const t = perTestKitOn(harness, { rules: [BOOK_RULE] });
  let desk: MockServer | undefined;
  beforeEach(() => {
    desk = deskServer();
  });
  afterEach(async () => {
    await desk?.close();
  });
  const deskOf = (): MockServer => {
    if (!desk) throw new Error("deskPerTest: the desk exists only inside a test");
    return desk;
  };
  const agent = (options?: Record<string, unknown>): AgentSelection => {
    const selection = select(t.model);
    return t.kit.agents([options ? { ...selection, options } : selection])[0]!;
  };
  return Object.defineProperties(t, {
    desk: { get: deskOf },
    agent: { value: agent },
    deskSession: {
      value: async (
        elicitation?: SessionOptions["elicitation"],
        on: AgentSelection = agent(),
      ): Promise<AgentSession> =>
        on.session({
          server: await deskOf().stdio(),
          ...(elicitation ? { elicitation } : {}),
          timeout: 60_000,
        }),
    },
  }) as DeskPerTest;
}
