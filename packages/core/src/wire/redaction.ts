/** Header names whose values are credentials. Matched case-insensitively, anywhere in the name. */
const SECRET_NAME = /(authorization|token|key|secret|password|cookie|credential|session-auth)/i;

/**
 * A copy of `headers` with credential values replaced by `[redacted]`, for anything the kit
 * records or prints. The names stay, so a test can see that a header was sent.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_NAME.test(name)
      ? "[redacted]"
      : Array.isArray(value)
        ? value.join(", ")
        : value;
  }
  return out;
}
