// The lookup order, version parsing and `--version` probe are the adapter kit's (the same
// for every harness); this package uses them as they are.
export {
  compareVersions,
  installedBin,
  isRunnableFile,
  onPath,
  parseVersion,
  readVersion,
  resolveAgentExecutable,
  runnable,
  type AgentVersion,
  type ExecutableLookup,
  type ExecutableSearch,
  type ExecutableSource,
  type FoundExecutable,
  type VersionProbe,
} from "@jest-m3/core/adapter-kit";
