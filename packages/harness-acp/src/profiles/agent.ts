import { PROVIDER_DIALECTS, type Capability } from "@jest-m3/core/harness";
import { fillAgentCommand, findAgentCommand } from "@jest-m3/core/adapter-kit";
import { agentEnvironment } from "../home.js";
import {
  missingPlaceholder,
  resolveAgentOptions,
  type PlaceholderValues,
  type ResolvedAgentOptions,
} from "../options.js";
import { identifyCall } from "../reported-calls.js";
import { selectModelOption, type AcpProfile } from "./profile.js";

function mentionsProvider(options: ResolvedAgentOptions): boolean {
  return [...options.args, ...Object.values(options.env)].some((text) =>
    /\{\{\s*provider\.baseUrl\s*\}\}/.test(text),
  );
}

/**
 * Any ACP agent, by `options.command` and `options.args`: isolated like the named agents
 * (fresh HOME, XDG folders, TMPDIR, allow-listed environment), the provider handed over
 * only where the options place it (`{{provider.baseUrl}}`), the model picked through the
 * session's `model` config option when the agent offers one. The allow-list is enforced
 * by refusing permission requests and at the wire, since the adapter cannot know the
 * agent's own permission settings.
 */
export const agentProfile: AcpProfile<ResolvedAgentOptions> = {
  name: "acp",
  agent: "ACP agent",
  dialects: ["chat-completions", "responses", "anthropic-messages", "gemini"],
  elicitation: {
    status: "unsupported",
    reason:
      "an ACP agent can pass MCP elicitations on only through ACP's unstable elicitation/create, which this adapter does not answer yet: neither tested agent (Gemini CLI 0.61, OpenCode 1.18) sends it",
  },
  resolveOptions: resolveAgentOptions,
  executable(selection, _config, options) {
    if (selection.executable !== undefined) {
      return {
        found: false,
        reason: `the acp harness takes its executable from options.command, not executable (got ${JSON.stringify(selection.executable)})`,
      };
    }
    return findAgentCommand(options.command);
  },
  credentials(provider, _names, _model, options): Capability {
    if (!provider) return { status: "ready" };
    if (!options.dialects.includes(provider.wireApi)) {
      return {
        status: "unavailable",
        reason: `provider "${provider.name}" speaks ${provider.wireApi}, but options.dialects says the agent speaks ${options.dialects.join(", ")}`,
      };
    }
    if (!mentionsProvider(options)) {
      return {
        status: "unavailable",
        reason:
          `the selection has a provider ("${provider.name}", ${provider.baseUrl}) but neither options.args nor ` +
          `options.env mention {{provider.baseUrl}}, so the agent would never use it. Say where the agent reads ` +
          `its endpoint, e.g. env: { OPENAI_BASE_URL: "{{provider.baseUrl}}" }` +
          (options.dialects === PROVIDER_DIALECTS
            ? ", and which dialects it speaks (options.dialects)"
            : ""),
      };
    }
    return { status: "ready" };
  },
  plan({ launch, home, options }) {
    const values: PlaceholderValues = {
      model: launch.model,
      home: home.home,
      workspace: launch.workspace,
      ...(launch.provider
        ? { "provider.baseUrl": launch.provider.baseUrl, "provider.name": launch.provider.name }
        : {}),
    };
    const { args, env } = fillAgentCommand(options, values, missingPlaceholder);
    return Promise.resolve({
      args,
      env: agentEnvironment(launch.env, home, { NO_COLOR: "1", ...env }),
    });
  },
  async afterSessionNew({ launch, options, client, session }) {
    if (!options.selectModel) return;
    const what = await selectModelOption(
      "ACP agent",
      client,
      session,
      launch.model,
      options.startupTimeoutMs,
    );
    launch.record({ kind: "harness", detail: what });
  },
  stop: (options) => options.stop,
  identify: identifyCall,
};
