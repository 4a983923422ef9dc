import { condenseErrorText } from "../dist/shared/transcript";

const codexStderr = [
  'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp"',
  "2026-12-01T05:29:11Z ERROR codex_app_server: Codex could not find bubblewrap on PATH. Codex will use the bundled bubblewrap in the meantime.",
  "2026-12-01T05:29:11Z ERROR codex_core::session: Failed to create session: required MCP servers failed to initialize",
].join("\n");

const message = [
  'Harness "codex" could not open a session: MCP server "todo" failed to start',
  "--- stderr (last lines) ---",
  codexStderr,
  '--- server "todo" stderr (last lines) ---',
  "todo-server: cannot open database todo.db",
  "--- stderr (last lines) ---",
  codexStderr,
].join("\n");

test("the server's failure comes first, the harness's stderr once, known noise left out", () => {
  const text = condenseErrorText(message);
  expect(text.split("\n").slice(0, 3)).toEqual([
    'MCP server "todo" stderr (last lines):',
    "  todo-server: cannot open database todo.db",
    'Harness "codex" could not open a session: MCP server "todo" failed to start',
  ]);
  expect(text.split("ERROR codex_core::session").length - 1).toBe(1);
  expect(text).not.toMatch(/bubblewrap|PATH aliases/);
  expect(text).toContain("2 known warning line(s) of the harness left out");
});

test("a message without stderr sections is left as it is", () => {
  expect(condenseErrorText("M3_TIMEOUT: the turn timed out")).toBe(
    "M3_TIMEOUT: the turn timed out",
  );
});
