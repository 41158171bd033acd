/**
 * The gieok (기억) memory server from TypeScript: `new Gieok({ baseUrl, apiKey })`.
 *
 * One method for every call of the Python `gieok.Client` (snake_case there, camelCase here; a test,
 * tests/test_client_parity.py, fails when one is missing), plus the admin routes the Python client
 * leaves to the CLI (keys, health, metrics). Requests and answers are the types of `schema.ts`,
 * generated from the server's OpenAPI schema; every call goes through `call()` (transport.ts), which
 * any other route can use directly. Errors come back as the classes of `errors.ts`.
 */
import type { components, paths } from "./schema.js";
import { type Answer, type FileData, type Method, type Parts, type Query, send } from "./transport.js";
import { Session, type SessionOptions } from "./session.js";
import { GieokError } from "./errors.js";

export * from "./errors.js";
export type { components, paths } from "./schema.js";
export type { Answer, FileData, Method, Parts, Query } from "./transport.js";
export { Session, type SessionOptions, type SessionShown, type SessionTurn } from "./session.js";

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
export type EntityInfo = Schemas["EntityInfo"];
export type IngestResult = Schemas["IngestResult"];
export type ImportResult = Schemas["ImportResult"];
export type BankImport = Schemas["BankImport"];
export type ApiKey = Schemas["ApiKey"];
export type KeyRequest = Schemas["KeyRequest"];
export type SessionTurnRequest = Schemas["SessionTurnRequest"];
/** a bank's redaction policy: `default` and one action per kind of identifier (`allow`, `redact`, `block`) */
export type RedactionPolicy = Schemas["PolicyRequest"]["policy"];
/** ingest's options: the route's query, with `metadata` as an object and the file's media type */
export type IngestOptions = Omit<Query<"/v1/banks/{bank}/documents", "post">, "metadata">
  & { metadata?: Record<string, unknown>; media_type?: string };
export type ImportOptions = Query<"/v1/banks/{bank}/imports/{format}", "post">;
export type JobsOptions = Query<"/v1/jobs", "get">;
/** a bank's disposition: skepticism, literalism, empathy (1-5, 3 neutral), name, background */
export type Disposition = Schemas["DispositionRequest"];
/** one directive: text, or an object such as `{ forbid: "dosages", words: ["mg"] }` or `{ language: "ko" }` */
export type DirectiveInput = Schemas["DirectivesRequest"]["directives"][number];
export type Directive = Schemas["DirectiveOut"];

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

const FINISHED = new Set(["done", "failed", "cancelled"]);

/** The bank a bank file names in its header (its first line); `data` must be text or bytes. */
function bankOfFile(data: FileData): string {
  if (!(typeof data === "string" || data instanceof Uint8Array || data instanceof ArrayBuffer)) {
    throw new TypeError("importBank: give the bank's name when the file is a Blob");
  }
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const header: unknown = JSON.parse(text.slice(0, text.indexOf("\n") >>> 0));
  if (typeof header !== "object" || header === null || typeof (header as { bank?: unknown }).bank !== "string") {
    throw new TypeError("importBank: the file's first line is not a gieok bank header");
  }
  return (header as { bank: string }).bank;
}

export class Gieok {
  readonly baseUrl: string;
  private readonly transport: { baseUrl: string; apiKey: string | undefined; timeoutMs: number; fetch: typeof fetch };

  constructor(options: GieokOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:8765").replace(/\/+$/, "");
    this.transport = {
      baseUrl: this.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs ?? 120_000,
      fetch: options.fetch ?? globalThis.fetch,
    };
  }

  /** One route of the server, typed by its OpenAPI schema (for the routes without a method here). */
  call<P extends keyof paths, M extends Method>(method: M, route: P, parts: Parts<P, M>): Promise<Answer<P, M>> {
    return send(this.transport, method, route, parts);
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

  // -- files: the body is the file's bytes, the options are query parameters ---------------------
  /** Keep a document (PDF, DOCX, HTML, Markdown, text): its format comes from `document_id`'s
   * extension or `media_type`. In Node, read a file with `await readFile(path)`. */
  ingest(bank: string, data: FileData, options: IngestOptions = {}): Promise<IngestResult> {
    const { metadata, media_type: mediaType, ...query } = options;
    return this.call("post", "/v1/banks/{bank}/documents", {
      path: { bank }, bytes: data, mediaType,
      query: { ...query, metadata: metadata === undefined ? undefined : JSON.stringify(metadata) },
    });
  }

  /** Import an exported chat (`format`: e.g. `kakaotalk`, `chatgpt`), one source per conversation. */
  importChat(bank: string, data: FileData, format: string, options: ImportOptions = {}): Promise<ImportResult> {
    return this.call("post", "/v1/banks/{bank}/imports/{format}", { path: { bank, format }, bytes: data, query: options });
  }

  // -- moving banks (an admin key; the file format: docs/guide/portability.md) ------------------
  /** The bank as a gieok bank file (JSON Lines: a header, the bank's settings, then one record per
   * line); `withVectors` adds every vector with its embedder id. */
  async exportBank(bank: string, options: { withVectors?: boolean } = {}): Promise<string> {
    const file: unknown = await this.call("get", "/v1/banks/{bank}/export", {
      path: { bank }, query: { with_vectors: options.withVectors ?? false },
    });
    return typeof file === "string" ? file : JSON.stringify(file) + "\n";
  }

  /** The bank file's lines, each one JSON record (`JSON.parse` it). */
  async iterExport(bank: string, options: { withVectors?: boolean } = {}): Promise<string[]> {
    return (await this.exportBank(bank, options)).split("\n").filter((line) => line !== "").map((line) => line + "\n");
  }

  /** Import a bank file into `bank` (default: the name in its header). Checked line by line before
   * anything is written; the same file again changes nothing. */
  importBank(data: FileData, bank?: string): Promise<BankImport> {
    const name = bank ?? bankOfFile(data);
    return this.call("post", "/v1/banks/{bank}/import", { path: { bank: name }, bytes: data, mediaType: "application/x-ndjson" });
  }

  /** Copy a bank to a new bank `newName`, independent of it from then on. */
  cloneBank(bank: string, newName: string): Promise<BankImport> {
    return this.call("post", "/v1/banks/{bank}/clone", { path: { bank }, body: { new: newName } });
  }

  /** Give a bank another name (an existing name is refused: 409). */
  renameBank(bank: string, newName: string): Promise<BankInfo> {
    return this.call("post", "/v1/banks/{bank}/rename", { path: { bank }, body: { new: newName } });
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
  /** A session's calls: `add` a turn, `show` it rendered (with `query`: the context for it),
   * `turns`, `render`, `summary`. Nothing is sent until a call. */
  session(bank: string, sessionId: string, options: SessionOptions = {}): Session {
    return new Session(this, bank, sessionId, options);
  }

  // -- operations and jobs ----------------------------------------------------------------------
  operation(operationId: string): Promise<Operation> {
    return this.call("get", "/v1/operations/{operation_id}", { path: { operation_id: operationId } });
  }

  cancelOperation(operationId: string): Promise<Operation> {
    return this.call("post", "/v1/operations/{operation_id}/cancel", { path: { operation_id: operationId } });
  }

  retryOperation(operationId: string): Promise<Operation> {
    return this.call("post", "/v1/operations/{operation_id}/retry", { path: { operation_id: operationId } });
  }

  /** Move a bank to another embedder (an admin key); with `wait`, poll until the server's workers
   * have run it (done, failed, cancelled, or queued again after an error). */
  async reembed(bank: string, embedder: string, options: { wait?: boolean; pollMs?: number } = {}): Promise<Operation> {
    const accepted = await this.call("post", "/v1/banks/{bank}/reembed", { path: { bank }, body: { embedder } });
    let op = await this.operation(accepted.operation_id);
    while (options.wait && !FINISHED.has(op.status) && !(op.status === "queued" && op.error)) {
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
      op = await this.operation(op.id);
    }
    return op;
  }

  /** A bank's job queue (a read key), or every bank's (no bank: an admin key). */
  jobs(bank?: string, options: JobsOptions = {}) {
    return bank === undefined
      ? this.call("get", "/v1/jobs", { query: options })
      : this.call("get", "/v1/banks/{bank}/jobs", { path: { bank }, query: options });
  }

  // -- the memory quarantine ------------------------------------------------------------------
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

  /** Create an empty bank (retain creates one too); answers it as `banks()` lists it. */
  createBank(bank: string): Promise<BankInfo> {
    return this.call("put", "/v1/banks/{bank}", { path: { bank } });
  }

  /** Erase a bank and everything in it; answers how many rows of each kind went. */
  deleteBank(bank: string) {
    return this.call("delete", "/v1/banks/{bank}", { path: { bank } });
  }

  sources(bank: string): Promise<SourceInfo[]> {
    return this.call("get", "/v1/banks/{bank}/sources", { path: { bank } });
  }

  source(bank: string, sourceId: string): Promise<SourceInfo> {
    return this.call("get", "/v1/banks/{bank}/sources/{source_id}", { path: { bank, source_id: sourceId } });
  }

  /** The memories drawn from one source, by kind. */
  sourceFacts(bank: string, sourceId: string) {
    return this.call("get", "/v1/banks/{bank}/sources/{source_id}/facts", { path: { bank, source_id: sourceId } });
  }

  get(bank: string, memoryId: string): Promise<RecalledMemory> {
    return this.call("get", "/v1/banks/{bank}/memories/{memory_id}", { path: { bank, memory_id: memoryId } });
  }

  /** Every version of a memory, the ones it superseded included. */
  history(bank: string, memoryId: string): Promise<RecalledMemory[]> {
    return this.call("get", "/v1/banks/{bank}/memories/{memory_id}/history", { path: { bank, memory_id: memoryId } });
  }

  /** A memory's links, entities and source. */
  connections(bank: string, memoryId: string) {
    return this.call("get", "/v1/banks/{bank}/memories/{memory_id}/connections", { path: { bank, memory_id: memoryId } });
  }

  /** Pin a memory (it never decays) or unpin it. */
  pin(bank: string, memoryId: string, options: { pinned?: boolean } = {}): Promise<RecalledMemory> {
    return this.call("post", "/v1/banks/{bank}/memories/{memory_id}/pin", {
      path: { bank, memory_id: memoryId }, body: { pinned: options.pinned ?? true },
    });
  }

  /** The consolidated statements about entities and topics. */
  observations(bank: string): Promise<RecalledMemory[]> {
    return this.call("get", "/v1/banks/{bank}/observations", { path: { bank } });
  }

  entities(bank: string): Promise<EntityInfo[]> {
    return this.call("get", "/v1/banks/{bank}/entities", { path: { bank } });
  }

  /** One entity: its names and the memories that mention it. */
  entity(bank: string, name: string, options: { limit?: number } = {}) {
    return this.call("get", "/v1/banks/{bank}/entities/{name}", { path: { bank, name }, query: options });
  }

  /** Pairs of entities that look like one (김민지 / 민지), for an operator to merge. */
  mergeSuggestions(bank: string, options: { limit?: number } = {}) {
    return this.call("get", "/v1/banks/{bank}/entities/merge-suggestions", { path: { bank }, query: options });
  }

  /** A bank at a glance: counts, recent sources, entities, jobs. */
  overview(bank: string, options: { now?: string } = {}) {
    return this.call("get", "/v1/banks/{bank}/overview", { path: { bank }, query: options });
  }

  // -- configuration and bookkeeping ------------------------------------------------------------
  redactionPolicy(bank: string) {
    return this.call("get", "/v1/banks/{bank}/redaction-policy", { path: { bank } });
  }

  /** Set what retain does with each kind of identifier (null: back to the server's default). */
  setRedactionPolicy(bank: string, policy: RedactionPolicy) {
    return this.call("put", "/v1/banks/{bank}/redaction-policy", { path: { bank }, body: { policy } });
  }

  auditLog(bank: string, options: { limit?: number } = {}) {
    return this.call("get", "/v1/banks/{bank}/audit-log", { path: { bank }, query: options });
  }

  /** Name the bank's decision model (e.g. `learned`, `llm`; null: the default); answers the one now in use. */
  async configureDecisions(bank: string, model: string | null): Promise<string> {
    const answer = await this.call("put", "/v1/banks/{bank}/decision-model", { path: { bank }, body: { model } });
    return String(answer.decision_model);
  }

  /** What the bank's LLM calls cost so far, and its spend limit. */
  llmUsage(bank: string) {
    return this.call("get", "/v1/banks/{bank}/llm-usage", { path: { bank } });
  }

  // -- shaping reflect: the bank's disposition and directives -----------------------------------
  /** Who answers the bank's reflect: skepticism, literalism, empathy (1-5, 3 neutral), a name, a background. */
  disposition(bank: string) {
    return this.call("get", "/v1/banks/{bank}/disposition", { path: { bank } });
  }

  /** Replace the bank's disposition; what is left out is neutral. */
  setDisposition(bank: string, disposition: Disposition = {}) {
    return this.call("put", "/v1/banks/{bank}/disposition", { path: { bank }, body: disposition });
  }

  /** The bank's directives, in order, as it read them (`enforced`: checked in code). */
  directives(bank: string) {
    return this.call("get", "/v1/banks/{bank}/directives", { path: { bank } });
  }

  /** Replace the bank's directives: text ("Never give medical dosages", "답변은 존댓말로") or objects. */
  setDirectives(bank: string, directives: DirectiveInput[]) {
    return this.call("put", "/v1/banks/{bank}/directives", { path: { bank }, body: { directives } });
  }

  // -- mental models: standing questions with stored answers ------------------------------------
  addMentalModel(bank: string, name: string, question: string, options: { refresh?: boolean } = {}) {
    return this.call("post", "/v1/banks/{bank}/mental-models", {
      path: { bank }, body: { name, question, refresh: options.refresh ?? true },
    });
  }

  mentalModel(bank: string, name: string) {
    return this.call("get", "/v1/banks/{bank}/mental-models/{name}", { path: { bank, name } });
  }

  mentalModels(bank: string) {
    return this.call("get", "/v1/banks/{bank}/mental-models", { path: { bank } });
  }

  async deleteMentalModel(bank: string, name: string): Promise<void> {
    await this.call("delete", "/v1/banks/{bank}/mental-models/{name}", { path: { bank, name } });
  }

  // -- the server itself (admin): keys, health, metrics -----------------------------------------
  /** Every API key (an admin key), without their secrets. */
  keys(): Promise<ApiKey[]> {
    return this.call("get", "/v1/keys", {});
  }

  /** A new key; its `secret` is in this answer only. */
  createKey(request: KeyRequest) {
    return this.call("post", "/v1/keys", { body: request });
  }

  revokeKey(keyId: number): Promise<ApiKey> {
    return this.call("delete", "/v1/keys/{key_id}", { path: { key_id: keyId } });
  }

  /** The server's health: its store, workers and version (no key needed). */
  health() {
    return this.call("get", "/health", {});
  }

  /** Whether the server has warmed up (its models loaded): `true` on `GET /ready`'s 200, `false` on its
   * 503 while it warms up (no key needed). Any other failure is thrown as usual. */
  async ready(): Promise<boolean> {
    try {
      await this.call("get", "/ready", {});
      return true;
    } catch (error) {
      if (error instanceof GieokError && error.status === 503) return false;
      throw error;
    }
  }

  /** The server's Prometheus metrics, as text. */
  metrics(): Promise<string> {
    return this.call("get", "/metrics", {});
  }
}
