import { isSecretName } from "../wire/redaction.js";

/** A secret value to hide, and the name shown in its place (`[redacted: NAME]`). */
export interface SecretValue {
  /** Where the value came from: a variable name, `shipping header authorization`. */
  readonly name: string;
  readonly value: string;
}

/** Values shorter than this are not scrubbed from text: they would hide ordinary words. */
export const MIN_SECRET_LENGTH = 6;

/**
 * The one place secret values are scrubbed from text, by value. Core's runtime feeds it
 * the credentials the kit hands out (a harness's `credentialEnv`, a secret header); the
 * jest-m3 reports feed it the credential-named variables of the environment. Only names
 * remain.
 *
 * @example
 * ```ts
 * const scrubber = new SecretScrubber().addCredentialVariables(process.env);
 * scrubber.scrub("token sk-live-123456"); // "token [redacted: MY_API_KEY]"
 * ```
 */
export class SecretScrubber {
  private readonly names = new Map<string, string>();
  private sorted: SecretValue[] | undefined;

  /** A scrubber of `secrets` (values shorter than {@link MIN_SECRET_LENGTH} are ignored). */
  constructor(secrets: Iterable<SecretValue> = []) {
    for (const { name, value } of secrets) this.add(name, value);
  }

  /** Remembers `value` as a secret shown as `name`. Too short a value is ignored. */
  add(name: string, value: string): this {
    if (typeof value === "string" && value.length >= MIN_SECRET_LENGTH) {
      this.names.set(value, name);
      this.sorted = undefined;
    }
    return this;
  }

  /** Adds the value of every variable of `env` whose name says it holds a credential. */
  addCredentialVariables(env: Readonly<Record<string, string | undefined>>): this {
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && isSecretName(name)) this.add(name, value);
    }
    return this;
  }

  /** Every secret, longest value first (so a secret inside a longer one is not cut). */
  secrets(): SecretValue[] {
    this.sorted ??= [...this.names]
      .map(([value, name]) => ({ name, value }))
      .sort((a, b) => b.value.length - a.value.length);
    return [...this.sorted];
  }

  /** `text` with every secret value replaced by `[redacted: NAME]`. */
  scrub(text: string): string {
    let out = text;
    for (const { name, value } of this.secrets()) {
      if (out.includes(value)) out = out.split(value).join(`[redacted: ${name}]`);
    }
    return out;
  }

  /**
   * `value` with every secret scrubbed from each string in it (keys too), however deep, in
   * arrays and plain objects; other objects are kept as they are. Without secrets, `value`
   * itself comes back.
   */
  scrubValue<T>(value: T): T {
    if (this.names.size === 0) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === "string") return this.scrub(item);
      if (Array.isArray(item)) return item.map(walk);
      if (
        typeof item === "object" &&
        item !== null &&
        Object.getPrototypeOf(item) === Object.prototype
      ) {
        return Object.fromEntries(
          Object.entries(item).map(([key, entry]) => [this.scrub(key), walk(entry)]),
        );
      }
      return item;
    };
    return walk(value) as T;
  }
}
