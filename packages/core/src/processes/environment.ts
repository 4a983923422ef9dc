// The allow-list of a child's environment, in a module of its own so the stdio relay can
// use it without loading the process manager.

/** Environment variables a child gets from the parent unless its spec overrides them. */
export const INHERITED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  "SYSTEMROOT",
  "COMSPEC",
  "PATHEXT",
  "APPDATA",
  "LOCALAPPDATA",
  "USERPROFILE",
] as const;

/** The default environment of a child: the allow-listed parent variables, then `extra`. */
export function childEnvironment(
  extra: Readonly<Record<string, string>> = {},
  from: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = from[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}
