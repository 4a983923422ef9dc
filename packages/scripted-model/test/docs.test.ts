/**
 * What docs/scripted-model.md shows is what the package does: its JSON scripts are valid,
 * the script it shows m3-script-from-cassette printing is a valid script, and the dialect
 * table's base URLs are what providerFor gives.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  PROVIDER_DIALECTS,
  startScriptedModel,
  validateScript,
  type Script,
} from "@jest-m3/scripted-model";

const DOC = readFileSync(join(__dirname, "../../../docs/scripted-model.md"), "utf8");

function jsonBlocks(): unknown[] {
  return [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string));
}

test("every JSON script in the doc is a valid script", () => {
  const scripts = jsonBlocks().filter((b) => typeof b === "object" && b !== null && "rules" in b);
  expect(scripts.length).toBeGreaterThanOrEqual(2);
  for (const script of scripts) expect(() => validateScript(script as Script)).not.toThrow();
});

test("the dialect table's base URLs are what providerFor gives", async () => {
  await using model = await startScriptedModel({ rules: [{ steps: [{ reply: "hi" }] }] });
  for (const dialect of PROVIDER_DIALECTS) {
    const row = DOC.split("\n").find((line) => line.startsWith(`| \`${dialect}\``));
    expect(row).toBeDefined();
    const documented = /`(http:\/\/127\.0\.0\.1:PORT[^`]*)`/.exec(row ?? "")?.[1];
    expect(documented?.replace("http://127.0.0.1:PORT", model.url)).toBe(
      model.providerFor(dialect).baseUrl,
    );
  }
});
