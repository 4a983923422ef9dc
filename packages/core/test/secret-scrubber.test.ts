// One scrubber of secret values for the whole run: core's runtime feeds it the credentials
// the kit hands out, the reports feed it the credential-named variables of the environment,
// and both replace a value by its name the same way.
import { M3Runtime, SecretScrubber } from "@jest-m3/core/runner";

test("both feeds go through the one scrubber, longest value first, short values ignored", () => {
  const fromEnvironment = new SecretScrubber().addCredentialVariables({
    MY_API_KEY: "sk-live-123456",
    GITHUB_TOKEN: "ghp_abcdefghij",
    HOME: "/home/me-and-more",
    SHORT_TOKEN: "abc",
    UNSET_SECRET: undefined,
  });
  expect(fromEnvironment.secrets()).toEqual([
    { name: "MY_API_KEY", value: "sk-live-123456" },
    { name: "GITHUB_TOKEN", value: "ghp_abcdefghij" },
  ]);
  expect(fromEnvironment.scrub("key sk-live-123456, home /home/me-and-more, abc")).toBe(
    "key [redacted: MY_API_KEY], home /home/me-and-more, abc",
  );

  // A secret inside a longer one: the longer is replaced whole.
  const nested = new SecretScrubber([
    { name: "SHORT", value: "secret-1" },
    { name: "LONG", value: "prefix-secret-1-suffix" },
  ]);
  expect(nested.scrub("a prefix-secret-1-suffix and secret-1")).toBe(
    "a [redacted: LONG] and [redacted: SHORT]",
  );

  // The runtime's scrub is this scrubber, fed by what the kit registers.
  const runtime = new M3Runtime();
  runtime.registerSecret("OPENAI_API_KEY", "sk-live-123456");
  runtime.registerSecret("TINY", "12345");
  expect(runtime.secrets()).toEqual([{ name: "OPENAI_API_KEY", value: "sk-live-123456" }]);
  expect(runtime.scrub("Bearer sk-live-123456")).toBe(
    new SecretScrubber(runtime.secrets()).scrub("Bearer sk-live-123456"),
  );
  expect(runtime.scrub("Bearer sk-live-123456")).toBe("Bearer [redacted: OPENAI_API_KEY]");
});
