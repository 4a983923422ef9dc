/**
 * A secret by name: the value is read from the environment variable `env` when the client
 * connects, and never appears in a trace, a log or an error (only the name does).
 *
 * @example
 * ```ts
 * const client = kit.direct(server, { auth: { bearer: secretFromEnv("WEATHER_TOKEN") } });
 * ```
 */
export interface SecretRef {
  /** The environment variable that holds the value. */
  readonly env: string;
}
