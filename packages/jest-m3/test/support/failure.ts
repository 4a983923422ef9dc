/** The failure message of an assertion, without colours; throws if the assertion passed. */
export function failure(assertion: () => unknown): string {
  try {
    assertion();
  } catch (error) {
    // eslint-disable-next-line no-control-regex
    return (error as Error).message.replace(/\u001b\[[0-9;]*m/g, "");
  }
  throw new Error("the assertion passed");
}
