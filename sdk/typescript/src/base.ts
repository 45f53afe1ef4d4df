/**
 * BerthError is every error the gateway answers (`{"error": {code, message,
 * retryable, retryAfterMs?, context?}}`); each API code has its own subclass
 * (errors.ts). `hint` says what a caller can do about it.
 */
export class BerthError extends Error {
  static readonly code: string = "";
  /** The API code, e.g. "STALE_PROCESS_HANDLE". */
  readonly code: string;
  /** The HTTP status. */
  readonly status: number;
  /** Whether running the same unit of work again later may succeed. */
  readonly retryable: boolean;
  /** How long to wait before retrying, when the server said. */
  readonly retryAfterMs?: number;
  /** Extra fields the server attached (e.g. the sandbox's status). */
  readonly context?: Record<string, unknown>;
  /** What to do about it. */
  readonly hint: string;
  /** The X-Request-Id of the failed request, when the gateway sent one. */
  readonly requestId?: string;

  constructor(init: {
    code: string;
    message: string;
    status: number;
    retryable?: boolean;
    retryAfterMs?: number;
    context?: Record<string, unknown>;
    hint?: string;
    requestId?: string;
  }) {
    super(init.message);
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.context = init.context;
    this.hint = init.hint ?? "";
    this.requestId = init.requestId;
  }
}

/**
 * ConnectionError is a request that got no answer from the gateway (refused,
 * reset, DNS). It is retryable: the gateway may be restarting.
 */
export class ConnectionError extends Error {
  readonly retryable = true;
  readonly hint = "The gateway could not be reached: check the URL, or retry if it is restarting.";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = "ConnectionError";
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}
