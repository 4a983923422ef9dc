/**
 * What keeps credentials out of everything the reports write: fields with credential-looking
 * names are replaced (core's `isSecretName`, through the matchers' `redactValue`), and the
 * values of credential-named environment variables and of every credential and secret
 * header the kits handed out are replaced wherever they appear in a string (a server that
 * echoes its key, a prompt that quotes it). Only names ever remain.
 */
import { defaultRuntime, isSecretName, SecretScrubber } from "@jest-m3/core/lean";
import { redactValue } from "../format/values.js";

/** A credential value to hide, and the variable name shown in its place. */
export interface SecretValue {
  readonly name: string;
  readonly value: string;
}

/**
 * The secret values to hide, longest first (core's scrubber): the credential-named variables
 * of `env`, and every value this process's runtime was handed as a secret (a selection's
 * `credentialEnv`, an HTTP server's secret header such as `X-Api-Key`), by the name it came
 * from (`shipping header X-Api-Key`). In a Jest worker that is the preset's runtime, so the
 * session transcripts (`executions/`) it writes, and every report built from them, hold no
 * value a server echoed.
 */
export function secretValuesOf(env: NodeJS.ProcessEnv = process.env): SecretValue[] {
  return new SecretScrubber(defaultRuntime().secrets()).addCredentialVariables(env).secrets();
}

/** A JSON string member, `"name": "value"`, inside free text (a prompt, a failure message). */
const JSON_MEMBER = /"([\w.-]{1,64})"(\s*:\s*)"(?:[^"\\]|\\.)*"/g;
/** An environment-style assignment, `NAME=value`. */
const ASSIGNMENT = /\b([A-Za-z_][\w]{0,63})=([^\s"',;]+)/g;

/**
 * `text` with every secret value replaced by `[redacted: NAME]`, and the value of every
 * credential-named JSON member or `NAME=value` assignment in it replaced by `[redacted]`
 * (a prompt that quotes a token, say).
 */
export function scrubText(text: string, secrets: readonly SecretValue[]): string {
  let out = new SecretScrubber(secrets).scrub(text);
  out = out.replace(JSON_MEMBER, (member: string, name: string, colon: string) =>
    isSecretName(name) && !member.endsWith('"[redacted]"')
      ? `"${name}"${colon}"[redacted]"`
      : member,
  );
  return out.replace(ASSIGNMENT, (assignment: string, name: string) =>
    isSecretName(name) ? `${name}=[redacted]` : assignment,
  );
}

/**
 * A copy of `value` safe to write: credential-named fields redacted at every depth, and
 * secret values scrubbed from every string.
 */
export function redactForReport(value: unknown, secrets: readonly SecretValue[]): unknown {
  const named = redactValue(value);
  if (secrets.length === 0) return named;
  const scrub = (entry: unknown): unknown => {
    if (typeof entry === "string") return scrubText(entry, secrets);
    if (Array.isArray(entry)) return entry.map(scrub);
    if (typeof entry === "object" && entry !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(entry)) out[key] = scrub(inner);
      return out;
    }
    return entry;
  };
  return scrub(named);
}
