import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { must, nonEmptyString, positiveMs, strictFields } from "../validation/rules.js";

/**
 * The options of `kit.direct(server, options)`. The auth and the elicitation plan are
 * checked by their own parsers (`parseHttpAuth`, `parseElicitationPlan`), which know
 * their secrets and rules; whether auth fits the server's kind is checked against the
 * resolved spec.
 */
export const directClientOptionsSchema = strictFields(
  {
    timeoutMs: positiveMs.optional(),
    startTimeoutMs: positiveMs.optional(),
    clientInfo: z
      .looseObject(
        { name: nonEmptyString(), version: z.string(must("a version string")) },
        must("{ name, version }"),
      )
      .optional(),
    protocolVersion: z
      .string(must("a protocol revision string"))
      .refine((version) => SUPPORTED_PROTOCOL_VERSIONS.includes(version), {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is not a revision the MCP SDK speaks. ` +
          `Known: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`,
      })
      .optional(),
    validateSchemas: z.boolean(must("true or false")).optional(),
    sampling: z
      .custom<(...args: never[]) => unknown>(
        (value) => typeof value === "function",
        must("a function (params) => CreateMessageResult"),
      )
      .optional(),
    roots: z
      .array(
        z.looseObject(
          { uri: z.string(must("a URI string")), name: z.string().optional() },
          must("{ uri, name? }"),
        ),
        must("an array of { uri, name? }"),
      )
      .optional(),
    elicitation: z.unknown().optional(),
    elicitationModes: z
      .array(
        z.enum(["form", "url"], must('"form" or "url"')),
        must('a list of "form" and/or "url"'),
      )
      .min(1, must('a list of "form" and/or "url"'))
      .optional(),
    capabilities: z.record(z.string(), z.unknown(), must("an object of capabilities")).optional(),
    auth: z.unknown().optional(),
  },
  { unknown: "is not a kit.direct() option", listed: "the options are" },
);
