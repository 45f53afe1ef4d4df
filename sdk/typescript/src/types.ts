// The API's shapes (schemas/openapi.yaml, components/schemas).

export type SandboxStatus = "created" | "starting" | "running" | "dozing" | "stopping" | "stopped" | "destroying" | "destroyed" | (string & {});

export interface EgressPolicy {
  mode: "open" | "none" | "allowlist";
  domains?: string[];
  cidrs?: string[];
}

export interface ExposedPort {
  port: number;
  public: boolean;
  url: string;
  pathUrl: string;
  token?: string;
}

export interface SandboxInfo {
  name: string;
  instanceType: string;
  status: SandboxStatus;
  sleepAfter: string;
  keepAlive: boolean;
  env: Record<string, string>;
  /** The sandbox's own image as its create named it, and what that resolved to then (absent: the type's image). */
  image?: string;
  imageDigest?: string;
  lastBackupId?: string;
  host?: string;
  lastEvent?: string;
  egress?: EgressPolicy;
  ports?: ExposedPort[];
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export interface ExitStatus {
  /** The exit code, or 128+signal. */
  code: number;
  signal?: number;
  /** The exec timeout ended the process. */
  timedOut: boolean;
}

export interface ProcessInfo {
  id: string;
  pid: number;
  command: string[];
  cwd: string;
  state: "running" | "exited" | "error";
  startedAt: string;
  endedAt?: string;
  exit?: ExitStatus;
  service?: string;
}

export interface Output {
  stdout: string;
  stderr: string;
  exitCode: number;
  signal?: number;
  /** The exec timeout ended the process. */
  timedOut: boolean;
  /** Older output was dropped, or maxBytes cut it. */
  truncated: boolean;
}

export interface RunResult extends Output {
  id: string;
  pid: number;
  startedAt: string;
  endedAt: string;
}

export interface LogEvent {
  type: "stdout" | "stderr" | "exit" | "truncated";
  /** Resume point: logs({ since: cursor }) continues after this event. */
  cursor: string;
  timestamp: string;
  /** The output bytes (stdout/stderr). */
  data?: Uint8Array;
  /** The same bytes decoded as UTF-8. */
  text?: string;
  exit?: ExitStatus;
}

export interface LogMatch {
  line: string;
  stream: "stdout" | "stderr";
  cursor: string;
}

export interface SandboxEvent {
  offset: number;
  type: string;
  payload: Record<string, unknown>;
  createdAt: string;
  path: string;
}

export interface Backup {
  backupId: string;
  size: number;
  bytes: number;
  files: number;
  sha256: string;
  createdAt: string;
  expiresAt?: string;
  bad?: boolean;
  badReason?: string;
  /** The volume a lost host still held when the sandbox started elsewhere
   * from an older backup: restored only when named. */
  rescued?: { host: string; lostAt: string };
}

export interface FileInfo {
  name: string;
  path: string;
  type: "file" | "directory" | "symlink" | "fifo" | "socket" | "device" | "other";
  size?: number;
  mode?: string;
  mtime?: string;
  target?: string;
}

export interface Service {
  name: string;
  argv: string[];
  [key: string]: unknown;
}

export interface Secret {
  name: string;
  hosts: string[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type TokenScope = "read" | "exec" | "files" | "lifecycle" | "secrets-admin";

/** A scoped token; `token` (its value) is in createToken's answer only. */
export interface Token {
  id: string;
  name: string;
  sandboxes: string[];
  scopes: TokenScope[];
  createdAt: string;
  expiresAt: string;
  token?: string;
}

/** What a sandbox uses now; the live figures only when `live`. */
export interface SandboxStats {
  name: string;
  status: string;
  live: boolean;
  at?: string;
  cpu?: { usageSeconds: number; percent: number; windowSeconds: number; limitCores: number };
  memory?: { usedBytes: number; limitBytes: number };
  pids?: { current: number; limit: number };
  disk?: { usedBytes: number; limitBytes: number; lastKnown?: boolean; at?: string };
  network?: { rxBytes: number; txBytes: number };
}
