/**
 * Turning a recorded cassette into a script: one rule per user turn, one step per recorded
 * model answer (tool calls, a reply, an HTTP error, a cut stream), in any dialect.
 */
import type { Cassette } from "./cassette";
import { DIALECTS } from "./dialects";
import type { CallStep, Rule, Script, Step } from "./script";
import { isPlainObject, type JsonObject } from "./script";

/**
 * Builds a script that answers like a recording did. Each user turn becomes a rule
 * `{ when: { user, turn }, steps }`; recorded tool calls become `call` (or `parallel`) steps
 * with the recorded arguments, text answers `reply` steps, error statuses `http` steps, and
 * streams that ended early `cut` steps. Side requests and tool searches are left out (the
 * scripted model answers those itself).
 *
 * Tool names are turned back into `server:tool`: `mcp__server__tool` and Codex namespaces
 * exactly; `mcp_server_tool` and `server_tool` split at the first underscore, which is a
 * guess when a server name holds one, so read the result over.
 */
export function scriptFromCassette(cassette: Cassette, name?: string): Script {
  const dialect = DIALECTS.find((d) => d.name === (cassette.dialect ?? "responses"));
  if (dialect === undefined) throw new Error(`unknown dialect ${String(cassette.dialect)}`);
  const rules: Rule[] = [];
  let current: { turn: number; user: string; steps: Step[]; ended: boolean } | undefined;
  for (const interaction of [...cassette.interactions].sort((a, b) => a.index - b.index)) {
    if (interaction.side !== undefined) continue;
    const users = interaction.request.input.flatMap((item) => ("user" in item ? [item.user] : []));
    const turn = users.length;
    const user = users.at(-1) ?? "";
    if (current === undefined || current.turn !== turn || current.user !== user) {
      current = { turn, user, steps: [], ended: false };
      rules.push({
        name: `turn ${turn}${rules.some((r) => r.name === `turn ${turn}`) ? ` (${rules.length + 1})` : ""}`,
        when: turn === 0 ? {} : { user, turn },
        steps: current.steps,
      });
    }
    if (current.ended) continue;
    const response = interaction.response;
    if (response.status >= 400) {
      current.steps.push({ http: response.status });
      continue;
    }
    let body: unknown;
    try {
      body = response.body === undefined ? undefined : JSON.parse(response.body);
    } catch {
      body = undefined;
    }
    const answer = dialect.readAnswer(response.events, body);
    const calls: CallStep[] = answer.calls
      .filter((call) => call.name !== "ToolSearch")
      .map((call) => ({
        call: toolReference(call.namespace, call.name),
        args: isPlainObject(call.arguments) ? (call.arguments as JsonObject) : {},
      }));
    if (!response.complete) current.steps.push({ cut: true });
    else if (calls.length === 1) current.steps.push(calls[0] as CallStep);
    else if (calls.length > 1) current.steps.push({ parallel: calls });
    else if (answer.text.length > 0 || answer.calls.length === 0) {
      current.steps.push({ reply: answer.text.replace(/\{\{/g, "{ {").replace(/\}\}/g, "} }") });
      current.ended = true;
    }
  }
  return {
    ...(name === undefined ? {} : { name }),
    rules: rules.filter((rule) => rule.steps.length > 0),
  };
}

function toolReference(namespace: string | null, name: string): string {
  if (namespace !== null && namespace.startsWith("mcp__")) return `${namespace.slice(5)}:${name}`;
  const exact = /^mcp__(.+?)__(.+)$/.exec(name);
  if (exact) return `${exact[1]}:${exact[2]}`;
  const split = /^(?:mcp_)?([^_]+)_(.+)$/.exec(name);
  if (split) return `${split[1]}:${split[2]}`;
  return `unknown:${name}`;
}
