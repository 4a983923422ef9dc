#!/usr/bin/env node
"use strict";
// `npx jest-m3 <command>`: the command line lives in dist/cli/main.js.
require("../dist/cli/main.js")
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error) => {
    process.stderr.write(`jest-m3: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
