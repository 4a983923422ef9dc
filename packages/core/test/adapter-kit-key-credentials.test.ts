/**
 * The adapter kit's rules for an agent that authenticates with one key variable: a
 * provider's key must be mapped, else the agent's variable; the variable's value for a
 * launch pointed at a provider (the mapped key's value, or the stand-in for a keyless one).
 */
import { keyCredentials, NO_KEY, providerKey } from "@jest-m3/core/adapter-kit";
import type { ModelProvider } from "@jest-m3/core/harness";

const credentials = keyCredentials("My Agent", "MY_AGENT_API_KEY", "chat-completions");
const keyless = {
  name: "scripted",
  wireApi: "chat-completions",
  baseUrl: "http://127.0.0.1:9/v1",
} as ModelProvider;
const keyed = { ...keyless, name: "hosted", envKey: "HOSTED_KEY" } as ModelProvider;

test("a provider decides: ready when keyless or its key is mapped", () => {
  expect(credentials(keyless, [])).toEqual({ status: "ready" });
  expect(credentials(keyed, ["HOSTED_KEY"])).toEqual({ status: "ready" });
  expect(credentials(keyed, ["MY_AGENT_API_KEY"])).toEqual({
    status: "unavailable",
    reason:
      'provider "hosted" reads its key from HOSTED_KEY, which is not mapped; add credentialEnv: { HOSTED_KEY: "<PARENT_VARIABLE>" }',
  });
});

test("without a provider, the agent's variable must be mapped", () => {
  expect(credentials(undefined, ["MY_AGENT_API_KEY"])).toEqual({ status: "ready" });
  expect(credentials(undefined, ["OTHER_KEY"])).toEqual({
    status: "unavailable",
    reason:
      "no provider and no MY_AGENT_API_KEY: My Agent's own login is not copied into the isolated home. " +
      'Map a key with credentialEnv: { MY_AGENT_API_KEY: "<PARENT_VARIABLE>" }, or give a provider ' +
      '(the scripted model\'s providerFor("chat-completions"))',
  });
});

test("providerKey: the mapped key's value, the stand-in for a keyless provider, none without one", () => {
  expect(
    providerKey({ provider: keyed, env: { HOSTED_KEY: "sk-hosted" } }, "MY_AGENT_API_KEY"),
  ).toEqual({ MY_AGENT_API_KEY: "sk-hosted" });
  expect(providerKey({ provider: keyed, env: {} }, "MY_AGENT_API_KEY")).toEqual({
    MY_AGENT_API_KEY: "",
  });
  expect(providerKey({ provider: keyless, env: {} }, "MY_AGENT_API_KEY")).toEqual({
    MY_AGENT_API_KEY: NO_KEY,
  });
  expect(providerKey({ env: { MY_AGENT_API_KEY: "sk-own" } }, "MY_AGENT_API_KEY")).toEqual({});
});
