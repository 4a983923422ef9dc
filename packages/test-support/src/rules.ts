/** Scripted-model rules the packages' tests build alike. */
import type { CallArguments, Rule } from "@jest-m3/scripted-model";

/**
 * A rule of one tool call and a reply: a prompt matching `user` gets the call `call`
 * (`server:tool`) with `args`, then `reply` (a template, e.g. "{{result}}"). Named `name`,
 * by default `user` itself (or the pattern's source).
 */
export function callRule(
  user: string | RegExp,
  call: string,
  args: CallArguments,
  reply: string,
  name: string = typeof user === "string" ? user : user.source,
): Rule {
  return { name, when: { user }, steps: [{ call, args }, { reply }] };
}
