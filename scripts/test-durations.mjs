#!/usr/bin/env node
// Writes scripts/test-durations.json, the seconds each test file took, from the output of
// `npx jest --json --outputFile <file>`: the order scripts/test-sequencer.cjs runs files in
// when Jest has no duration cache (a fresh clone, CI). With --print, lists the files
// slowest first instead, with their slowest tests. Usage:
//   node scripts/test-durations.mjs <jest.json> [--print]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const [input, flag] = process.argv.slice(2);
if (!input) {
  console.error("Usage: node scripts/test-durations.mjs <jest --json output> [--print]");
  process.exit(2);
}
const run = JSON.parse(readFileSync(input, "utf8"));
const files = run.testResults
  .map((result) => ({
    path: relative(repo, result.name).split(sep).join("/"),
    seconds: Math.round((result.endTime - result.startTime) / 100) / 10,
    tests: result.assertionResults
      .map((test) => ({ name: test.fullName, seconds: (test.duration ?? 0) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds),
  }))
  .sort((a, b) => b.seconds - a.seconds);

if (flag === "--print") {
  for (const file of files) {
    console.log(`${file.seconds.toFixed(1).padStart(7)} s  ${file.path}`);
    for (const test of file.tests.slice(0, 3)) {
      console.log(`${test.seconds.toFixed(1).padStart(16)} s  ${test.name}`);
    }
  }
  const total = files.reduce((sum, file) => sum + file.seconds, 0);
  console.log(`${files.length} files, ${total.toFixed(0)} s of file time`);
} else {
  const out = join(repo, "scripts", "test-durations.json");
  const durations = Object.fromEntries(files.map((file) => [file.path, file.seconds]));
  writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`wrote ${relative(repo, out)} (${files.length} files)`);
}
