// Compiled by `npm run typecheck`, never run: toPassJudge's signature, on the exported and
// the global expect. Each @ts-expect-error must stay an error.
import { expect as globalExpect } from "@jest/globals";
import { expect, type ExecutionResult, type PassJudgeOptions, type TurnResult } from "jest-m3";

declare const result: ExecutionResult;
declare const turn: TurnResult;

const judge: PassJudgeOptions["judge"] = {
  provider: { name: "scripted", baseUrl: "http://127.0.0.1:4000/v1", wireApi: "responses" },
  model: "judge",
  credentialEnv: "JUDGE_API_KEY",
};

export async function judged(): Promise<void> {
  await expect(turn).toPassJudge("the reply states the quoted amount");
  await expect(result).toPassJudge("every reply states an amount", { threshold: 0.8, judge });
  await expect(turn).not.toPassJudge("the reply is in French", {
    judge: { provider: "run", model: "m" },
  });
  await globalExpect(turn).toPassJudge("the reply states the quoted amount", { threshold: 1 });
  // @ts-expect-error criteria are a text
  await expect(turn).toPassJudge(42);
  // @ts-expect-error the threshold is a number
  await expect(turn).toPassJudge("x", { threshold: "high" });
  const bedrock = { name: "p", baseUrl: "u", wireApi: "bedrock" as const };
  // @ts-expect-error wireApi is a dialect jest-m3 speaks
  await expect(turn).toPassJudge("x", { judge: { provider: bedrock, model: "m" } });
  // toPassJudge returns a promise: it must be awaited.
  const pending: Promise<void> = expect(turn).toPassJudge("x");
  await pending;
}
