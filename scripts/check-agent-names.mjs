#!/usr/bin/env node
// Fails when packages/core/src names an agent in code: an identifier, a string, a template
// or a regular expression holding an agent's name as a word (`codex`, `claudeCode`,
// "gemini-cli", /opencode/). The kit finds harnesses by registration and configuration, so
// a name in core is a special case waiting to happen. Comments may name agents (an example,
// a reason); only code is read. Run by `npm run lint`.
//
//   node scripts/check-agent-names.mjs [<src folder>]   (default: packages/core/src)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Agents' names, one word each, lower case. A word of a token must equal one to count. */
export const AGENT_NAMES = [
  "codex",
  "claude",
  "gemini",
  "opencode",
  "pi",
  "qwen",
  "copilot",
  "kilo",
];

/**
 * Model APIs named like an agent: a string that is exactly a provider dialect's name
 * (`"gemini"`, the harness contract's `ProviderDialect`), and a name followed by "API" or
 * "dialect" ("the Gemini API"), speak of the model API, not of the agent.
 */
const DIALECTS = new Set(["gemini"]);
const API_WORDS = new Set(["api", "apis", "dialect", "dialects"]);

const STRINGS = new Set([ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral]);

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function files(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(c|m)?[jt]s$/.test(path) && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/** The words of a token: split at non-letters and at camelCase humps (`claudeCode` → claude, code). */
function words(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const CODE_TOKENS = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/** Every agent name in the code of `src`, as `{ file, line, name, token }`. */
export function agentNamesIn(src) {
  const names = new Set(AGENT_NAMES);
  const found = [];
  for (const file of files(src)) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const visit = (node) => {
      if (CODE_TOKENS.has(node.kind)) {
        const token = node.getText(source);
        const all = words(token);
        const dialect = STRINGS.has(node.kind) && DIALECTS.has(node.text);
        const name = all.find(
          (word, index) => names.has(word) && !API_WORDS.has(all[index + 1] ?? ""),
        );
        if (name !== undefined && !dialect) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push({
            file: relative(src, file).split(sep).join("/"),
            line: line + 1,
            name,
            token,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const src = resolve(process.argv[2] ?? join(root, "packages", "core", "src"));
  const where = relative(process.cwd(), src) || ".";
  const found = agentNamesIn(src);
  for (const { file, line, name, token } of found)
    console.error(`Agent name in ${where}/${file}:${line}: "${name}" in ${token.slice(0, 80)}`);
  if (found.length > 0) {
    console.error(
      "Core knows no agent: move what is true of one agent into its harness package, or " +
        "make it an option or a capability the harness declares.",
    );
    process.exit(1);
  }
  console.log(`No agent names in the code of ${where}.`);
}
