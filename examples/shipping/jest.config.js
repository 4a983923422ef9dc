"use strict";
module.exports = { displayName: "example-shipping", preset: "jest-m3" };
