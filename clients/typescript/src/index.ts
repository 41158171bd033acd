/**
 * The gieok (기억) memory server from TypeScript: `new Gieok({ baseUrl, apiKey })`.
 *
 * Every call goes through `call()`, which is typed by the routes of `schema.ts`, generated from the
 * server's OpenAPI schema (`openapi.json`): a route, parameter or field the server does not have is
 * a compile error here, not a 404 at run time. Errors come back as the classes of `errors.ts`.
 */
import type { components, paths } from "./schema.js";
import { errorFor, GieokError } from "./errors.js";

export * from "./errors.js";
export type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
export type Message = Schemas["MessageIn"];
export type RetainRequest = Omit<Schemas["RetainRequest"], "async">;
export type RetainResult = Schemas["RetainResult"];
export type RecallRequest = Omit<Schemas["RecallRequest"], "query">;
export type Recall = Schemas["Recall"];
export type RecalledMemory = Schemas["RecalledMemory"];
export type ReflectRequest = Omit<Schemas["ReflectRequest"], "question">;
export type Reflection = Schemas["Reflection"];
export type ForgetRequest = Schemas["ForgetRequest"];
export type ForgetResult = Schemas["ForgetResult"];
export type Operation = Schemas["Operation"];
export type OperationAccepted = Schemas["OperationAccepted"];
export type HeldStatement = Schemas["HeldStatement"];
export type BankInfo = Schemas["BankInfo"];
export type SourceInfo = Schemas["SourceInfo"];
export type SessionTurnRequest = Schemas["SessionTurnRequest"];

type Method = "get" | "post" | "put" | "delete";
type Route<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { "application/json": infer J } } ? J : never;
/** what a route answers on success: 200's body, else 201's or 202's */
type Answer<P extends keyof paths, M extends Method> = Route<P, M> extends { responses: infer R }
  ? R extends { 200: infer A } ? Json<A> : R extends { 201: infer B } ? Json<B> : R extends { 202: infer C } ? Json<C> : never
  : never;
type Parts<P extends keyof paths, M extends Method> = {
  path?: Route<P, M> extends { parameters: { path: infer X } } ? X : never;
  query?: Route<P, M> extends { parameters: { query?: infer Q } } ? Q : never;
  body?: Route<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
};

export interface GieokOptions {
  /** the server, e.g. `http://127.0.0.1:8765` (what `gieok serve` listens on by default) */
  baseUrl?: string;
  /** a key from `gieok keys create`; needed once the server has any key */
  apiKey?: string;
  /** milliseconds before a call is abandoned (default 120 000: a retain with an LLM can take a while) */
  timeoutMs?: number;
  /** another fetch (a proxy, a test double); default the global one */
  fetch?: typeof fetch;
}

export class Gieok {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: GieokOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:8765").replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  // -- retain, recall, reflect, forget ----------------------------------------------------------
  /** Keep a conversation (`messages`, gieok's `{speaker, text}` or OpenAI's `{role, content}`) or a
   * document (`text`); answers what was written. */
  async retain(bank: string, request: RetainRequest): Promise<RetainResult> {
    const answer = await this.call("post", "/v1/banks/{bank}/retain", { path: { bank }, body: request });
    return answer as RetainResult; // the route's 200 is declared loosely (it may also answer 202)
  }

  /** Queue a retain to run in the background; poll it with `operation(id)`. */
  async submitRetain(bank: string, request: RetainRequest): Promise<OperationAccepted> {
    const answer = await this.call("post", "/v1/banks/{bank}/retain", { path: { bank }, body: { ...request, async: true } });
    return answer as OperationAccepted;
  }

  /** The memories a query needs, inside a token budget, each with the channels that found it. */
  recall(bank: string, query: string, options: RecallRequest = {}): Promise<Recall> {
    return this.call("post", "/v1/banks/{bank}/recall", { path: { bank }, body: { ...options, query } });
  }

  /** An answer built only from memories, quotations checked against their sources. */
  reflect(bank: string, question: string, options: ReflectRequest = {}): Promise<Reflection> {
    return this.call("post", "/v1/banks/{bank}/reflect", { path: { bank }, body: { ...options, question } });
  }

  /** Erase a source, a memory, an entity, everything before a date or everything of a user. */
  forget(bank: string, request: ForgetRequest): Promise<ForgetResult> {
    return this.call("post", "/v1/banks/{bank}/forget", { path: { bank }, body: request });
  }

  // -- profile --------------------------------------------------------------------------------
  /** The profile slots known of a person (default: the user; `userId`: that user's). */
  profile(bank: string, options: { person?: string; userId?: string } = {}) {
    return this.call("get", "/v1/banks/{bank}/profile", {
      path: { bank }, query: { person: options.person, user_id: options.userId },
    });
  }

  /** One profile slot (e.g. `allergy`, `employer`), or null when it is not known. */
  lookup(bank: string, slot: string, options: { entity?: string; userId?: string } = {}) {
    return this.call("get", "/v1/banks/{bank}/profile/{slot}", {
      path: { bank, slot }, query: { entity: options.entity, user_id: options.userId },
    });
  }

  // -- sessions (working memory) ----------------------------------------------------------------
  /** A session's calls: `add` a turn, `show` it rendered (with `query`: the context for it). */
  session(bank: string, sessionId: string, options: { userId?: string; maxTokens?: number; keepRecent?: number } = {}) {
    return new Session(this, bank, sessionId, options);
  }

  // -- operations -------------------------------------------------------------------------------
  operation(operationId: string): Promise<Operation> {
    return this.call("get", "/v1/operations/{operation_id}", { path: { operation_id: operationId } });
  }

  cancelOperation(operationId: string): Promise<Operation> {
    return this.call("post", "/v1/operations/{operation_id}/cancel", { path: { operation_id: operationId } });
  }

  retryOperation(operationId: string): Promise<Operation> {
    return this.call("post", "/v1/operations/{operation_id}/retry", { path: { operation_id: operationId } });
  }

  // -- quarantine -------------------------------------------------------------------------------
  /** Statements retain held back (instruction-like text from a lower-trust source), newest first. */
  quarantined(bank: string, options: { limit?: number } = {}): Promise<HeldStatement[]> {
    return this.call("get", "/v1/banks/{bank}/quarantine", { path: { bank }, query: { limit: options.limit } });
  }

  /** Let a held statement in as a memory. */
  release(bank: string, heldId: string): Promise<RecalledMemory> {
    return this.call("post", "/v1/banks/{bank}/quarantine/{held_id}/release", { path: { bank, held_id: heldId } });
  }

  /** Erase a held statement. */
  async dismiss(bank: string, heldId: string): Promise<void> {
    await this.call("delete", "/v1/banks/{bank}/quarantine/{held_id}", { path: { bank, held_id: heldId } });
  }

  // -- banks and inspection ---------------------------------------------------------------------
  banks(): Promise<BankInfo[]> {
    return this.call("get", "/v1/banks", {});
  }

  sources(bank: string): Promise<SourceInfo[]> {
    return this.call("get", "/v1/banks/{bank}/sources", { path: { bank } });
  }

  get(bank: string, memoryId: string): Promise<RecalledMemory> {
    return this.call("get", "/v1/banks/{bank}/memories/{memory_id}", { path: { bank, memory_id: memoryId } });
  }

  deleteBank(bank: string) {
    return this.call("delete", "/v1/banks/{bank}", { path: { bank } });
  }

  /** One route of the server, typed by its OpenAPI schema (for the routes without a method here). */
  async call<P extends keyof paths, M extends Method>(method: M, route: P, parts: Parts<P, M>): Promise<Answer<P, M>> {
    const url = this.baseUrl + fill(route, parts.path as Record<string, string> | undefined)
      + search(parts.query as Record<string, unknown> | undefined);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    if (parts.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: method.toUpperCase(), headers, signal: AbortSignal.timeout(this.timeoutMs),
        body: parts.body === undefined ? undefined : JSON.stringify(parts.body),
      });
    } catch (cause) {
      throw new GieokError({
        type: "unreachable", title: "unreachable", status: 0,
        detail: `cannot reach the gieok server at ${this.baseUrl}: ${String(cause)} (is \`gieok serve\` running there?)`,
      });
    }
    const text = await response.text();
    const data: unknown = text ? parseJson(text) : null;
    if (!response.ok) throw errorFor(response.status, data);
    return data as Answer<P, M>;
  }
}

/** A session's calls over HTTP, as `Memory.session` answers them in Python. */
export class Session {
  constructor(private readonly client: Gieok, readonly bank: string, readonly sessionId: string,
              private readonly options: { userId?: string; maxTokens?: number; keepRecent?: number }) {}

  /** Add a turn (as the session's user); answers its position and the session rendered after it. */
  add(role: string, content: string) {
    const { userId, maxTokens, keepRecent } = this.options;
    return this.client.call("post", "/v1/banks/{bank}/sessions/{session_id}/turns", {
      path: { bank: this.bank, session_id: this.sessionId },
      body: { role, content, user_id: userId, max_tokens: maxTokens, keep_recent: keepRecent },
    });
  }

  /** The session rendered (turns, summary, messages); with `query`, the context for it too. */
  show(query?: string, maxTokens?: number) {
    const { userId, maxTokens: sessionTokens, keepRecent } = this.options;
    return this.client.call("get", "/v1/banks/{bank}/sessions/{session_id}", {
      path: { bank: this.bank, session_id: this.sessionId },
      query: { query, max_tokens: maxTokens, session_tokens: sessionTokens, keep_recent: keepRecent, user_id: userId },
    });
  }
}

function fill(route: string, path: Record<string, string> | undefined): string {
  // a bank or id is one path segment, whatever its letters (Korean included)
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path?.[name];
    if (value === undefined) throw new TypeError(`${route}: ${name} is missing`);
    return encodeURIComponent(value);
  });
}

function search(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // a proxy's HTML error page: errorFor keeps it as the message
  }
}
