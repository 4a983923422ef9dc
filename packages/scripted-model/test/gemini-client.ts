/**
 * The Google Gen AI SDK's client of a scripted model's gemini dialect, as the SDK tests
 * build it. The SDK's types are ESM-only; at run time its CommonJS build is what Jest loads.
 */
import type * as GenAI from "@google/genai" with { "resolution-mode": "import" };
import type { ScriptedModel } from "@jest-m3/scripted-model";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require("@google/genai") as typeof GenAI;

/** A client of `model` (gemini dialect): API v1beta, one attempt, node's fetch. */
export function geminiClient(model: ScriptedModel): GenAI.GoogleGenAI {
  return new GoogleGenAI({
    apiKey: "dummy",
    httpOptions: {
      baseUrl: model.providerFor("gemini").baseUrl,
      apiVersion: "v1beta",
      retryOptions: { attempts: 1 },
      // The SDK's own undici dispatcher is not reachable from Jest's sandbox; node's fetch is.
      fetch: (url, init) => fetch(url, init),
    },
  });
}
