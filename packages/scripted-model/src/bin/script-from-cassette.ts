#!/usr/bin/env node
/**
 * `m3-script-from-cassette <cassette.json> [--out script.json] [--name NAME]`: prints (or
 * writes) a scripted-model script that answers like the recorded run did.
 */
import { writeFileSync } from "node:fs";
import { loadCassette } from "../cassette";
import { ScriptedModelError } from "../errors";
import { scriptFromCassette } from "../script-from-cassette";

const USAGE = "usage: m3-script-from-cassette <cassette.json> [--out script.json] [--name NAME]";

function main(argv: string[]): number {
  let file: string | undefined;
  let out: string | undefined;
  let name: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--out" || arg === "-o") out = argv[++i];
    else if (arg === "--name") name = argv[++i];
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (file === undefined && !arg.startsWith("-")) file = arg;
    else {
      process.stderr.write(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}\n`);
      return 2;
    }
  }
  if (file === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const text = `${JSON.stringify(scriptFromCassette(loadCassette(file), name), null, 2)}\n`;
    if (out === undefined) process.stdout.write(text);
    else writeFileSync(out, text);
    return 0;
  } catch (error) {
    const message = error instanceof ScriptedModelError ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
