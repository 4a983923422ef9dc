// The journal keeps every request's headers but never a key: each dialect's key header
// (Authorization, x-api-key, x-goog-api-key) is written redacted, whichever SDK sent it.
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

test.each([
  ["authorization", "Bearer sk-journal-key-0001", "Bearer <redacted>"],
  ["x-api-key", "sk-journal-key-0002", "<redacted>"],
  ["x-goog-api-key", "sk-journal-key-0003", "<redacted>"],
])("%s is journaled redacted", async (header, value, written) => {
  model = await startScriptedModel({ rules: [{ steps: [{ reply: "ok" }] }] });
  const response = await fetch(`${model.url}/v1beta/models/g:generateContent`, {
    method: "POST",
    headers: { "content-type": "application/json", [header]: value },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  });
  expect(response.status).toBe(200);
  expect(model.journal.entries[0]?.headers[header]).toBe(written);
  expect(JSON.stringify(model.journal.toJSON())).not.toContain(value);
});
