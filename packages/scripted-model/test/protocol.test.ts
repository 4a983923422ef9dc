/**
 * The Responses streaming protocol as a plain HTTP/SSE client sees it: event sequences, tool
 * exposures (namespaces, flat names, tool_search), matching and templating.
 */
import {
  BUILTIN_TOOLS,
  TOOL_SEARCH,
  callAndOutput,
  namespaceTools,
  outputItems,
  preamble,
  requestBody,
  toolSearchOutput,
  userMessage,
} from "./codex-requests";
import { modelPerTest, QUOTE } from "./scripts";
import { postResponses } from "./sse-client";

const { start } = modelPerTest();

/** The event types of a streamed response of one output item, `itemEvents` between its added and done. */
function oneItemStream(...itemEvents: string[]): string[] {
  return [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    ...itemEvents,
    "response.output_item.done",
    "response.completed",
  ];
}

test("a reply streams the full message event sequence", async () => {
  const m = await start({ rules: [{ steps: [{ reply: "Hello there, friend." }] }] });
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({ input: [...preamble(), userMessage("hi")] }),
  );

  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toContain("text/event-stream");
  const deltas = reply.types.filter((t) => t === "response.output_text.delta").length;
  expect(deltas).toBeGreaterThan(1);
  expect(reply.types).toEqual(
    oneItemStream(
      "response.content_part.added",
      ...Array<string>(deltas).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
    ),
  );
  for (const frame of reply.frames) expect(frame.event).toBe(frame.data.type);
  const sequence = reply.frames.map((f) => f.data.sequence_number);
  expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
  const text = reply.frames
    .filter((f) => f.data.type === "response.output_text.delta")
    .map((f) => f.data.delta)
    .join("");
  expect(text).toBe("Hello there, friend.");
  const done = reply.frames.find((f) => f.data.type === "response.output_item.done")?.data.item;
  expect(done).toMatchObject({
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Hello there, friend." }],
  });
  const completed = reply.frames.at(-1)?.data.response;
  expect(completed).toMatchObject({ status: "completed", output: [done] });
  expect(completed.usage.total_tokens).toBe(
    completed.usage.input_tokens + completed.usage.output_tokens,
  );
});

test("a call step streams a namespaced function_call, and the tool result feeds the templated reply", async () => {
  const m = await start(QUOTE);
  const input = [...preamble(), userMessage("Please quote 2 kg local")];
  const first = await postResponses(m.provider.baseUrl, requestBody({ input, conversation: "c1" }));

  expect(first.types).toEqual(
    oneItemStream(
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
    ),
  );
  const [call] = outputItems(first.frames);
  expect(call).toMatchObject({
    type: "function_call",
    namespace: "mcp__shipping",
    name: "shipping_quote",
    status: "completed",
  });
  expect(JSON.parse(String(call?.arguments))).toEqual({ weight_kg: 2, zone: "local" });
  const args = first.frames.find((f) => f.data.type === "response.function_call_arguments.done");
  expect(args?.data.arguments).toBe(call?.arguments);

  const second = await postResponses(
    m.provider.baseUrl,
    requestBody({
      conversation: "c1",
      input: [
        ...input,
        ...callAndOutput(
          {
            call_id: String(call?.call_id),
            namespace: "mcp__shipping",
            name: "shipping_quote",
            arguments: String(call?.arguments),
          },
          { amount: 9, currency: "USD" },
        ),
      ],
    }),
  );
  expect(outputItems(second.frames)).toMatchObject([
    { type: "message", content: [{ text: "Shipping costs 9 USD." }] },
  ]);
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["call", "reply"]);
  expect(m.journal.entries[1]?.conversation?.turnResults).toEqual([
    expect.objectContaining({
      server: "shipping",
      tool: "shipping_quote",
      value: { amount: 9, currency: "USD" },
    }),
  ]);
  expect(m.journal.problems).toEqual([]);
});

test("parallel calls go out in one response, sequential calls in separate ones", async () => {
  const m = await start({
    rules: [
      {
        steps: [
          {
            parallel: [
              { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "local" } },
              { call: "shipping:shipping_quote", args: { weight_kg: 3, zone: "regional" } },
            ],
          },
          { call: "shipping:shipping_quote", args: { weight_kg: 5, zone: "international" } },
          { reply: "Quotes: {{results.0.amount}}, {{results.1.amount}}, {{results.2.amount}}." },
        ],
      },
    ],
  });
  const input = [...preamble(), userMessage("three quotes")];
  const first = await postResponses(m.provider.baseUrl, requestBody({ input }));
  const calls = outputItems(first.frames);
  expect(calls.map((c) => JSON.parse(String(c.arguments)))).toEqual([
    { weight_kg: 1, zone: "local" },
    { weight_kg: 3, zone: "regional" },
  ]);
  expect(first.types.filter((t) => t === "response.output_item.done")).toHaveLength(2);
  expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);

  input.push(
    ...calls.flatMap((c, i) =>
      callAndOutput(c as never, { amount: [7, 15.5][i], currency: "USD" }),
    ),
  );
  const second = await postResponses(m.provider.baseUrl, requestBody({ input }));
  const [third] = outputItems(second.frames);
  expect(JSON.parse(String(third?.arguments))).toEqual({ weight_kg: 5, zone: "international" });

  input.push(...callAndOutput(third as never, { amount: 40, currency: "USD" }));
  const last = await postResponses(m.provider.baseUrl, requestBody({ input }));
  expect(outputItems(last.frames)[0]).toMatchObject({
    content: [{ text: "Quotes: 7, 15.5, 40." }],
  });
});

test("a flat mcp__server__tool function is called by its flat name", async () => {
  const m = await start(QUOTE);
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({
      input: [userMessage("quote please")],
      tools: [{ type: "function", name: "mcp__shipping__shipping_quote", parameters: {} }],
    }),
  );
  const [call] = outputItems(reply.frames);
  expect(call).toMatchObject({ type: "function_call", name: "mcp__shipping__shipping_quote" });
  expect(call).not.toHaveProperty("namespace");
});

test("tool_search first: search, then the namespaced call, then the reply", async () => {
  const m = await start(QUOTE);
  const tools = [...BUILTIN_TOOLS, TOOL_SEARCH];
  const input = [...preamble(), userMessage("quote 2 kg")];

  const first = await postResponses(
    m.provider.baseUrl,
    requestBody({ input, tools, model: "gpt-5.5" }),
  );
  expect(first.types).toEqual(oneItemStream());
  const [search] = outputItems(first.frames);
  expect(search).toMatchObject({
    type: "tool_search_call",
    execution: "client",
    status: "completed",
    arguments: { query: expect.stringContaining("shipping_quote") },
  });

  input.push(
    ...toolSearchOutput(search as never, [namespaceTools("shipping", ["shipping_quote"])]),
  );
  const second = await postResponses(
    m.provider.baseUrl,
    requestBody({ input, tools, model: "gpt-5.5" }),
  );
  const [call] = outputItems(second.frames);
  expect(call).toMatchObject({
    type: "function_call",
    namespace: "mcp__shipping",
    name: "shipping_quote",
  });

  input.push(...callAndOutput(call as never, { amount: 9, currency: "USD" }));
  const third = await postResponses(
    m.provider.baseUrl,
    requestBody({ input, tools, model: "gpt-5.5" }),
  );
  expect(outputItems(third.frames)[0]).toMatchObject({
    content: [{ text: "Shipping costs 9 USD." }],
  });
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["tool_search", "call", "reply"]);
});

test("a tool the request does not offer gets a plain reply, and the journal records a problem", async () => {
  const m = await start({ rules: [{ name: "weather", steps: [{ call: "weather:forecast" }] }] });
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({ input: [userMessage("forecast?")] }),
  );
  const text = outputItems(reply.frames)[0]?.content as { text: string }[];
  expect(text[0]?.text).toBe(
    "I cannot call weather:forecast: this request does not offer that tool. MCP tools offered: " +
      'shipping:shipping_quote. (scripted model, rule "weather" step 1)',
  );
  expect(m.journal.problems).toEqual([
    'request #1 (POST /v1/responses): rule "weather" step 1 calls weather:forecast, which the request does not offer',
  ]);

  // With tool_search: one search, and when it does not return the tool, the same plain reply.
  const tools = [TOOL_SEARCH];
  const input = [userMessage("forecast?")];
  const first = await postResponses(m.provider.baseUrl, requestBody({ input, tools }));
  const [search] = outputItems(first.frames);
  expect(search?.type).toBe("tool_search_call");
  input.push(...toolSearchOutput(search as never, []));
  const second = await postResponses(m.provider.baseUrl, requestBody({ input, tools }));
  const after = outputItems(second.frames)[0]?.content as { text: string }[];
  expect(after[0]?.text).toContain("tool_search did not return it either");
  expect(after[0]?.text).toContain("MCP tools offered: none");
});

test('"toolNotOffered": "expected" on a rule or the script: the same plain reply, no problem', async () => {
  const request = requestBody({ input: [userMessage("forecast?")] });
  const onRule = await start({
    rules: [{ name: "weather", toolNotOffered: "expected", steps: [{ call: "weather:forecast" }] }],
  });
  const reply = await postResponses(onRule.provider.baseUrl, request);
  const text = outputItems(reply.frames)[0]?.content as { text: string }[];
  expect(text[0]?.text).toContain("I cannot call weather:forecast: this request does not offer");
  expect(onRule.journal.decisions.map((d) => d.kind)).toEqual(["tool_not_offered"]);
  expect(onRule.journal.problems).toEqual([]);
  await onRule.close();

  // Script-wide, with a rule that says otherwise: the rule's own setting wins.
  const scriptWide = await start({
    toolNotOffered: "expected",
    rules: [
      { name: "a", when: { user: "one" }, steps: [{ call: "weather:forecast" }] },
      {
        name: "b",
        when: { user: "two" },
        toolNotOffered: "problem",
        steps: [{ call: "weather:forecast" }],
      },
    ],
  });
  await postResponses(scriptWide.provider.baseUrl, requestBody({ input: [userMessage("one")] }));
  await postResponses(scriptWide.provider.baseUrl, requestBody({ input: [userMessage("two")] }));
  expect(scriptWide.journal.problems).toEqual([
    'request #2 (POST /v1/responses): rule "b" step 1 calls weather:forecast, which the request does not offer',
  ]);
});

test("unmatched input gets an error reply naming it; a fallback answers instead when given", async () => {
  const m = await start({ rules: [{ when: { user: "quote" }, steps: [{ reply: "q" }] }] });
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({ input: [...preamble(), userMessage("What is the weather?")] }),
  );
  const text = (outputItems(reply.frames)[0]?.content as { text: string }[])[0]?.text;
  expect(text).toBe(
    'Scripted model error: no rule matches this input: latest user message "What is the weather?" ' +
      '(turn 1), last tool result none. Add a rule whose "when" matches it, or a "fallback".',
  );
  expect(m.journal.decisions[0]?.kind).toBe("unmatched");
  expect(m.journal.problems[0]).toContain(
    'no rule matched: latest user message "What is the weather?"',
  );
  await m.close();

  const withFallback = await start({
    rules: [{ when: { user: "quote" }, steps: [{ reply: "q" }] }],
    fallback: [{ reply: "I only do quotes, not: {{user}}" }],
  });
  const fallback = await postResponses(
    withFallback.provider.baseUrl,
    requestBody({ input: [userMessage("weather?")] }),
  );
  expect(outputItems(fallback.frames)[0]).toMatchObject({
    content: [{ text: "I only do quotes, not: weather?" }],
  });
  expect(withFallback.journal.decisions[0]).toMatchObject({ kind: "reply", rule: "fallback" });
  expect(withFallback.journal.problems).toEqual([]);
});

test("rules match on turn number, last tool result, and a predicate; the first match wins", async () => {
  const m = await start({
    rules: [
      {
        name: "odd",
        when: { test: (c) => c.user.includes("odd") },
        steps: [{ reply: "predicate" }],
      },
      { name: "usd", when: { lastToolResult: { currency: "USD" } }, steps: [{ reply: "dollars" }] },
      { name: "eur", when: { lastToolResult: /EUR/ }, steps: [{ reply: "euros" }] },
      { name: "second", when: { turn: 2 }, steps: [{ reply: "turn two" }] },
      { name: "any", steps: [{ reply: "turn {{turn}}" }] },
    ],
  });
  const ask = async (input: Record<string, unknown>[]) => {
    const reply = await postResponses(m.provider.baseUrl, requestBody({ input }));
    return (outputItems(reply.frames)[0]?.content as { text: string }[])[0]?.text;
  };
  const history = [
    ...preamble(),
    userMessage("first"),
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] },
  ];
  expect(await ask([...preamble(), userMessage("first")])).toBe("turn 1");
  expect(await ask([...history, userMessage("second")])).toBe("turn two");
  expect(await ask([...history, userMessage("an odd one")])).toBe("predicate");
  const call = {
    call_id: "c1",
    namespace: "mcp__shipping",
    name: "shipping_quote",
    arguments: "{}",
  };
  const afterResult = (result: Record<string, unknown>) =>
    ask([...history, ...callAndOutput(call, result), userMessage("x")]);
  expect(await afterResult({ amount: 1, currency: "USD" })).toBe("dollars");
  expect(await afterResult({ amount: 1, currency: "EUR" })).toBe("euros");
  // Codex's <environment_context> message is context, not a user turn.
  expect(m.journal.entries[0]?.conversation).toMatchObject({ turn: 1, user: "first" });
});

test("arguments are computed from the match (function or JSON template), replies from the result", async () => {
  const m = await start({
    rules: [
      {
        name: "computed",
        when: { user: /quote (\d+) kg to (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: (c) => ({ weight_kg: Number(c.match?.[1]), zone: c.match?.[2] ?? "" }),
          },
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}", note: "for {{user}}" },
          },
          {
            reply: (c) =>
              `First ${JSON.stringify(c.results[0])}, last ${(c.result as { amount: number }).amount}.`,
          },
        ],
      },
    ],
  });
  const input = [userMessage("quote 4 kg to regional")];
  const first = outputItems(
    (await postResponses(m.provider.baseUrl, requestBody({ input }))).frames,
  );
  expect(JSON.parse(String(first[0]?.arguments))).toEqual({ weight_kg: 4, zone: "regional" });
  input.push(...callAndOutput(first[0] as never, { amount: 19 }));
  const second = outputItems(
    (await postResponses(m.provider.baseUrl, requestBody({ input }))).frames,
  );
  expect(JSON.parse(String(second[0]?.arguments))).toEqual({
    weight_kg: 4,
    zone: "regional",
    note: "for quote 4 kg to regional",
  });
  input.push(...callAndOutput(second[0] as never, { amount: 20 }));
  const third = outputItems(
    (await postResponses(m.provider.baseUrl, requestBody({ input }))).frames,
  );
  expect(third[0]).toMatchObject({ content: [{ text: 'First {"amount":19}, last 20.' }] });
});

test("a rule that ends after a call hands over to the rule matching the tool result", async () => {
  const m = await start({
    rules: [
      {
        name: "ask",
        when: { user: "quote" },
        steps: [{ call: "shipping:shipping_quote", args: {} }],
      },
      {
        name: "cheap",
        when: { lastToolResult: { amount: 9 } },
        steps: [{ reply: "cheap: {{result.amount}}" }],
      },
    ],
  });
  const input = [userMessage("quote")];
  const first = outputItems(
    (await postResponses(m.provider.baseUrl, requestBody({ input }))).frames,
  );
  input.push(...callAndOutput(first[0] as never, { amount: 9 }));
  const second = outputItems(
    (await postResponses(m.provider.baseUrl, requestBody({ input }))).frames,
  );
  expect(second[0]).toMatchObject({ content: [{ text: "cheap: 9" }] });
  expect(m.journal.decisions.map((d) => ("rule" in d ? d.rule : d.kind))).toEqual([
    'rule "ask"',
    'rule "cheap"',
  ]);
});

test("a template value that is missing is shown as <missing …> and recorded as a problem", async () => {
  const m = await start({
    rules: [{ name: "r", steps: [{ reply: "Amount: {{result.amount}}" }] }],
  });
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({ input: [userMessage("hi")] }),
  );
  expect(outputItems(reply.frames)[0]).toMatchObject({
    content: [{ text: "Amount: <missing result.amount>" }],
  });
  expect(m.journal.problems).toEqual([
    'request #1 (POST /v1/responses): rule "r" step 1: template value(s) missing: result.amount (last tool result: none)',
  ]);
});

test("a script function that throws answers HTTP 500 naming the error", async () => {
  const m = await start({
    rules: [
      {
        steps: [
          {
            reply: () => {
              throw new Error("boom in reply");
            },
          },
        ],
      },
    ],
  });
  const reply = await postResponses(
    m.provider.baseUrl,
    requestBody({ input: [userMessage("hi")] }),
  );
  expect(reply.status).toBe(500);
  expect(reply.json.error.message).toBe(
    "Scripted model: the script threw while answering: boom in reply",
  );
  expect(m.journal.decisions[0]?.kind).toBe("script_error");
});
