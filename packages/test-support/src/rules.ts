/** Scripted-model rules the packages' tests build alike. */
import type { CallArguments, Rule, TextMatcher } from "@jest-m3/scripted-model";

/**
 * A rule of one tool call and a reply: a prompt matching `user` gets the call `call`
 * (`server:tool`) with `args`, then `reply` (a template, e.g. "{{result}}"). Named `name`,
 * by default `user` itself (or the pattern's source). The rule is plain JSON when `user` is.
 */
export function callRule(
  user: TextMatcher,
  call: string,
  args: CallArguments,
  reply: string,
  name: string = typeof user === "string"
    ? user
    : user instanceof RegExp
      ? user.source
      : user.regex,
): Rule {
  return { name, when: { user }, steps: [{ call, args }, { reply }] };
}
