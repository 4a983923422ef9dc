/**
 * The MCP SDK's client modules and ajv, each loaded on its first use rather than with the
 * kit. Most test files never make a direct client (an agent test's MCP client is the agent),
 * and Jest loads every test file's modules afresh in its sandbox: loaded with the kit, these
 * were about 250 of the 430 modules `jest-m3` pulls in, a tenth of a second of CPU at the
 * start of every test file. `require` here is the sandbox's own, so a test's module mocks
 * and registry apply as to any import.
 */
import type * as AjvModule from "ajv";
import type * as Ajv2019Module from "ajv/dist/2019.js";
import type * as Ajv2020Module from "ajv/dist/2020.js";
import type * as AuthModule from "@modelcontextprotocol/sdk/client/auth.js";
import type * as ClientModule from "@modelcontextprotocol/sdk/client/index.js";
import type * as HttpModule from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (see above) */

/** The SDK's `Client` module. */
export const sdkClient = (): typeof ClientModule =>
  require("@modelcontextprotocol/sdk/client/index.js") as typeof ClientModule;

/** The SDK's Streamable HTTP client transport module. */
export const sdkHttp = (): typeof HttpModule =>
  require("@modelcontextprotocol/sdk/client/streamableHttp.js") as typeof HttpModule;

/** The SDK's OAuth client module. */
export const sdkAuth = (): typeof AuthModule =>
  require("@modelcontextprotocol/sdk/client/auth.js") as typeof AuthModule;

/** ajv's engines: draft-07 (and older), 2019-09 and 2020-12. */
export const ajvEngines = (): {
  readonly Ajv: typeof AjvModule.default;
  readonly Ajv2019: typeof Ajv2019Module.default;
  readonly Ajv2020: typeof Ajv2020Module.default;
} => ({
  Ajv: (require("ajv") as typeof AjvModule).default,
  Ajv2019: (require("ajv/dist/2019.js") as typeof Ajv2019Module).default,
  Ajv2020: (require("ajv/dist/2020.js") as typeof Ajv2020Module).default,
});
