"use strict";
// This repository's own tests and examples use exactly the preset users get.
module.exports = require("./packages/jest-m3/jest-preset.js");
