// @berth/sdk: a client of Berth's /v1 API with the process model of its
// design (exec answers on start; output, logs with cursors, waits; handles
// fail closed once their container is gone). Zero runtime dependencies:
// fetch and web streams of Node >= 18, browsers and workers.
export { Berth, Sandbox, getSandbox } from "./client.js";
export type { ClientOptions, CreateOptions, ExecOptions, RunOptions, EventsOptions } from "./client.js";
export { ProcessHandle, LogStream } from "./process.js";
export type { OutputOptions, LogsOptions, WaitOptions, PortOptions, LogWaitOptions } from "./process.js";
export { TerminalConnection } from "./terminal.js";
export { BerthError, ConnectionError } from "./base.js";
export * from "./errors.js";
export type {
  SandboxStatus, EgressPolicy, ExposedPort, SandboxInfo, ExitStatus, ProcessInfo, Output, RunResult,
  LogEvent, LogMatch, SandboxEvent, Backup, FileInfo, Service, Secret, Token, TokenScope, SandboxStats,
} from "./types.js";
