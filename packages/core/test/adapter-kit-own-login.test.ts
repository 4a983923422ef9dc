/**
 * The adapter kit's `ownLogin`: the user's login is used only when the session has no
 * provider and no credentials and the login is usable, and its use is recorded once.
 */
import { ownLogin } from "@jest-m3/core/adapter-kit";
import type { HarnessLaunch, ModelProvider } from "@jest-m3/core/harness";

type Login = { readonly usable: true; readonly file: string } | { readonly usable: false };

function launch(extra: { provider?: ModelProvider; credentials?: string[] } = {}) {
  const records: Parameters<HarnessLaunch["record"]>[0][] = [];
  return {
    records,
    launch: {
      credentials: extra.credentials ?? [],
      ...(extra.provider ? { provider: extra.provider } : {}),
      record: (entry: Parameters<HarnessLaunch["record"]>[0]) => void records.push(entry),
    },
  };
}

const usable: Login = { usable: true, file: "/home/user/.my-agent/auth.json" };
const describe = (login: { file: string }) => `the My Agent login of ${login.file}`;

test("ownLogin gives a usable login to a session with nothing else, and records it", () => {
  const { launch: plain, records } = launch();
  expect(ownLogin(plain, usable, describe)).toBe(usable);
  expect(records).toEqual([
    { kind: "harness", detail: "using the My Agent login of /home/user/.my-agent/auth.json" },
  ]);
});

test("ownLogin: not with credentials, a provider or an unusable login", () => {
  const provider = {
    name: "p",
    baseUrl: "http://127.0.0.1:1/v1",
    wireApi: "responses",
  } as ModelProvider;
  for (const [made, login] of [
    [launch({ credentials: ["MY_KEY"] }), usable],
    [launch({ provider }), usable],
    [launch(), { usable: false } as Login],
  ] as const) {
    expect(ownLogin(made.launch, login, describe)).toBeUndefined();
    expect(made.records).toEqual([]);
  }
});
