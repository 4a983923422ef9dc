// The docs cannot rot: every code block in docs/ (and the READMEs) that is a complete test
// must name the file CI runs it from (a `path.test.ts` right after the block), and that file
// must contain the block verbatim.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const repo = join(__dirname, "..", "..", "..");
const pages = [
  ...readdirSync(join(repo, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => join("docs", file)),
  "README.md",
  // Each published package's README, as npm shows it.
  ...readdirSync(join(repo, "packages"))
    .map((name) => join("packages", name, "README.md"))
    .filter((file) => existsSync(join(repo, file))),
];

interface Block {
  readonly page: string;
  readonly code: string;
  readonly after: string;
}

function completeTests(page: string): Block[] {
  const text = readFileSync(join(repo, page), "utf8");
  const blocks: Block[] = [];
  const fence = /```(?:ts|typescript)\n([\s\S]*?)```\n([\s\S]{0,400})/g;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const code = match[1]!;
    if (/^\s*test(\.each\([^)]*\))?\(/m.test(code)) blocks.push({ page, code, after: match[2]! });
  }
  return blocks;
}

const blocks = pages.flatMap(completeTests);

test("the docs contain complete tests to check", () => {
  expect(blocks.length).toBeGreaterThan(0);
});

test.each(
  blocks.map((block) => [
    `${block.page}: ${block.code
      .split("\n")
      .find((line) => line.includes("test("))
      ?.trim()}`,
    block,
  ]),
)("%s is a file CI runs", (_name, block) => {
  const named = /`([^`]+\.test\.ts)`/.exec((block as Block).after);
  expect(named?.[1]).toBeDefined();
  const source = readFileSync(join(repo, named![1]!), "utf8");
  expect(source).toContain((block as Block).code.trim());
});
