/**
 * The server's errors as typed exceptions. Every error answer of a gieok server is one
 * `application/problem+json` body (RFC 9457): `type` (a URL ending in the kind, e.g. `not-found`),
 * `title`, `status`, `detail` (the library's message, which says how to fix the problem) and, for
 * the library's own errors, `error` (its Python class name, e.g. `SessionUserError`).
 * One class per status family, so `catch (e) { if (e instanceof NotFoundError) … }` reads as in Python.
 */

/** The body of an error answer. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** the library's exception class, e.g. `NotFoundError`, `SessionUserError` */
  error?: string;
  /** a request the server could not read: where and what (FastAPI's validation errors) */
  errors?: { loc: string[]; msg: string; type: string }[];
  [more: string]: unknown;
}

/** Any error from the server, or the server not reachable (`status` 0). */
export class GieokError extends Error {
  /** the HTTP status (0: no answer) */
  readonly status: number;
  /** the kind of problem: the last part of the problem's `type`, e.g. `not-found`, `invalid-input` */
  readonly kind: string;
  /** the server's exception class name, e.g. `NotFoundError` (the kind's title when the server named none) */
  readonly error: string;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(problem.detail);
    this.name = new.target.name;
    this.problem = problem;
    this.status = problem.status;
    this.kind = problem.type.split("/").pop() ?? problem.type;
    this.error = problem.error ?? problem.title;
  }
}

/** 400, 413, 422: the request was refused as it is (the message says which field and why). */
export class InputError extends GieokError {}
/** 401: no key, or a key the server does not know. */
export class AuthError extends GieokError {}
/** 403: the key is valid but not for this bank or role. */
export class PermissionDeniedError extends AuthError {}
/** 404: no such bank, memory, source, operation or route. */
export class NotFoundError extends GieokError {}
/** 409: the thing is in another state (an operation already done, an embedder mismatch, a re-embed running). */
export class ConflictError extends GieokError {}
/** 429: the bank's LLM spend limit is reached. */
export class RateLimitError extends GieokError {}
/** 5xx: the server or a provider it calls failed; 503 ones are worth retrying later. */
export class ServerError extends GieokError {}

const BY_STATUS: [(status: number) => boolean, typeof GieokError][] = [
  [(s) => s === 400 || s === 413 || s === 422, InputError],
  [(s) => s === 401, AuthError],
  [(s) => s === 403, PermissionDeniedError],
  [(s) => s === 404, NotFoundError],
  [(s) => s === 409, ConflictError],
  [(s) => s === 429, RateLimitError],
  [(s) => s >= 500, ServerError],
];

/** The typed exception for an error answer (a body that is no problem+json still gives one). */
export function errorFor(status: number, body: unknown): GieokError {
  const problem = isProblem(body)
    ? body
    : { type: "about:blank", title: `HTTP ${status}`, status, detail: typeof body === "string" ? body : `HTTP ${status}` };
  const ErrorClass = BY_STATUS.find(([matches]) => matches(status))?.[1] ?? GieokError;
  return new ErrorClass({ ...problem, status });
}

function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && typeof (body as Problem).detail === "string"
    && typeof (body as Problem).type === "string";
}
