/**
 * `@jest-m3/core/validation`: the input checks every entry point of jest-m3 uses (zod
 * schemas turned into the entry point's own error, with the field's path, what came in, a
 * did-you-mean and the fix), for a runner binding that validates its own configuration the
 * same way. Loads zod, not the kit or the MCP SDK. Also exported by `@jest-m3/core/runner`.
 *
 * @packageDocumentation
 */
export {
  checkInput,
  describeValue,
  formatPath,
  type InputProblem,
} from "./validation/check-input.js";
export {
  strictFields,
  must,
  nonEmptyString,
  httpUrl,
  positiveMs,
  modelName,
  unknownKeyMessage,
  type UnknownKeyWording,
} from "./validation/rules.js";
export {
  checkJudgeSelection,
  type JudgeSelection,
  type JudgeProvider,
} from "./judge/judge-spec.js";
export { InvalidJudge } from "./judge/errors.js";
export { checkWebServerOptions, type WebServerOptions } from "./validation/web-server-options.js";
