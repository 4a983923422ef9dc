import { InvalidArgument, MissingSecret } from "../errors.js";
import { parseOAuthOptions, type OAuthOptions } from "./oauth.js";
import type { SecretRef } from "./secret-ref.js";
import { SecretScrubber } from "../runtime/secret-scrubber.js";

export type { SecretRef } from "./secret-ref.js";

/**
 * A {@link SecretRef} to the environment variable `name`.
 *
 * @example
 * ```ts
 * const token = secretFromEnv("WEATHER_TOKEN"); // { env: "WEATHER_TOKEN" }
 * ```
 */
export function secretFromEnv(name: string): SecretRef {
  checkName(name, "secretFromEnv()");
  return { env: name };
}

/**
 * How a direct client authenticates to an HTTP server; every value is a {@link SecretRef}.
 *
 * @example
 * ```ts
 * const auth: HttpAuth = { bearer: secretFromEnv("TOKEN"), headers: { "x-team": secretFromEnv("TEAM") } };
 * ```
 */
export interface HttpAuth {
  /** Sent as `Authorization: Bearer <value>`. */
  readonly bearer?: SecretRef;
  /** More headers, by header name (`{ "x-api-key": secretFromEnv("API_KEY") }`). */
  readonly headers?: Readonly<Record<string, SecretRef>>;
  /** The SDK's OAuth client flow against the server's authorization server (see {@link OAuthOptions}). */
  readonly oauth?: OAuthOptions;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkName(name: unknown, where: string): void {
  if (typeof name !== "string" || !VARIABLE.test(name)) {
    throw new InvalidArgument(
      `${where}: a secret reference names an environment variable (letters, digits, _); got ${JSON.stringify(name)}. ` +
        `Pass the variable's name, never the secret itself.`,
    );
  }
}

function checkRef(ref: unknown, where: string): void {
  if (typeof ref !== "object" || ref === null || Object.keys(ref).join() !== "env") {
    throw new InvalidArgument(
      `${where} must be a secret reference { env: "VARIABLE" } (see secretFromEnv()); plain strings are refused so a secret never sits in test code or traces.`,
    );
  }
  checkName((ref as { env: unknown }).env, where);
}

/** Checks an `auth` option before anything starts. */
export function parseHttpAuth(auth: unknown, where: string): HttpAuth {
  if (typeof auth !== "object" || auth === null) {
    throw new InvalidArgument(`${where} must be an object { bearer?, headers?, oauth? }.`);
  }
  for (const key of Object.keys(auth)) {
    if (key !== "bearer" && key !== "headers" && key !== "oauth") {
      throw new InvalidArgument(
        `${where} has an unknown key "${key}" (known: bearer, headers, oauth).`,
      );
    }
  }
  const { bearer, headers, oauth } = auth as {
    bearer?: unknown;
    headers?: unknown;
    oauth?: unknown;
  };
  if (bearer !== undefined) checkRef(bearer, `${where}.bearer`);
  if (oauth !== undefined) {
    if (bearer !== undefined) {
      throw new InvalidArgument(
        `${where}: give bearer or oauth, not both (oauth obtains the bearer token itself).`,
      );
    }
    parseOAuthOptions(oauth, `${where}.oauth`, checkRef);
  }
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null) {
      throw new InvalidArgument(
        `${where}.headers must be an object of header name → secret reference.`,
      );
    }
    for (const [name, ref] of Object.entries(headers)) {
      if (!HEADER.test(name))
        throw new InvalidArgument(
          `${where}.headers: ${JSON.stringify(name)} is not a valid header name.`,
        );
      checkRef(ref, `${where}.headers[${JSON.stringify(name)}]`);
    }
  }
  return auth as HttpAuth;
}

/** Headers resolved from an {@link HttpAuth}, and the secrets to redact by value. */
export interface ResolvedAuth {
  readonly headers: Record<string, string>;
  /** Value → variable name, for redaction. */
  readonly secrets: ReadonlyMap<string, string>;
}

/** Reads every secret of `auth` from `env`; a missing one throws {@link MissingSecret}. */
export function resolveHttpAuth(
  server: string,
  auth: HttpAuth | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedAuth {
  const headers: Record<string, string> = {};
  const secrets = new Map<string, string>();
  const read = (ref: SecretRef, usedFor: string): string => {
    const value = env[ref.env];
    if (!value) throw new MissingSecret(server, ref.env, usedFor);
    secrets.set(value, ref.env);
    return value;
  };
  if (auth?.bearer) headers.authorization = `Bearer ${read(auth.bearer, "the bearer token")}`;
  for (const [name, ref] of Object.entries(auth?.headers ?? {})) {
    headers[name] = read(ref, `the header ${name}`);
  }
  return { headers, secrets };
}

const scrubbers = new WeakMap<
  ReadonlyMap<string, string>,
  { readonly size: number; readonly scrubber: SecretScrubber }
>();

/**
 * Replaces every occurrence of a secret value (`secrets`: value → name) in `text` with
 * `[redacted: NAME]`, through core's one {@link SecretScrubber}.
 */
export function redactText(text: string, secrets: ReadonlyMap<string, string>): string {
  return scrubberOf(secrets).scrub(text);
}

function scrubberOf(secrets: ReadonlyMap<string, string>): SecretScrubber {
  const known = scrubbers.get(secrets);
  if (known !== undefined && known.size === secrets.size) return known.scrubber;
  const scrubber = new SecretScrubber([...secrets].map(([value, name]) => ({ name, value })));
  scrubbers.set(secrets, { size: secrets.size, scrubber });
  return scrubber;
}

/** A deep copy of `value` with every secret value redacted from its strings (and keys). */
export function redactValue<T>(value: T, secrets: ReadonlyMap<string, string>): T {
  return scrubberOf(secrets).scrubValue(value);
}
