/**
 * The tsconfig.json docs/getting-started.md tells a user's TypeScript project to have
 * (CommonJS, no isolatedModules: ts-jest's default checks types), for the tests and
 * benchmarks that build such a project.
 */
export const DOCUMENTED_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "ESNext.Disposable"],
    module: "commonjs",
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ["node", "jest"],
  },
};
