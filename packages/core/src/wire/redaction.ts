/** Names whose values are credentials. Matched case-insensitively, anywhere in the name. */
const SECRET_NAME =
  /(authorization|token|key|secret|password|passwd|cookie|credential|session-auth)/i;

/** True when a header, variable or field of this name holds a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

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
    out[name] = isSecretName(name) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
