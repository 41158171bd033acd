/** A session (working memory) over HTTP: `gieok.session(bank, id)` gives one, as `Memory.session` does in Python. */
import type { Answer, Method, Parts } from "./transport.js";
import type { paths } from "./schema.js";

export interface SessionOptions {
  /** the session's user: a session of another user is refused (`InputError`, `SessionUserError`) */
  userId?: string;
  /** tokens the rendered session may take (default the server's: 3000) */
  maxTokens?: number;
  /** turns kept verbatim at the end, the older ones summarised (default 6) */
  keepRecent?: number;
}

/** What a session needs of the client: one typed call. */
export interface Caller {
  call<P extends keyof paths, M extends Method>(method: M, route: P, parts: Parts<P, M>): Promise<Answer<P, M>>;
}

export type SessionShown = Answer<"/v1/banks/{bank}/sessions/{session_id}", "get">;
/** one turn as the server keeps it (`position`, `role`, `content`, …) */
export type SessionTurn = { position: number; role: string; content: string; [more: string]: unknown };

export class Session {
  constructor(private readonly client: Caller, readonly bank: string, readonly sessionId: string,
              private readonly options: SessionOptions = {}) {}

  /** Add a turn (as the session's user); answers its `position` and the session rendered after it. */
  add(role: string, content: string) {
    const { userId, maxTokens, keepRecent } = this.options;
    return this.client.call("post", "/v1/banks/{bank}/sessions/{session_id}/turns", {
      path: { bank: this.bank, session_id: this.sessionId },
      body: { role, content, user_id: userId, max_tokens: maxTokens, keep_recent: keepRecent },
    });
  }

  /** The session rendered (turns, summary, messages); with `query`, the context for it too. */
  show(query?: string, maxTokens?: number): Promise<SessionShown> {
    const { userId, maxTokens: sessionTokens, keepRecent } = this.options;
    return this.client.call("get", "/v1/banks/{bank}/sessions/{session_id}", {
      path: { bank: this.bank, session_id: this.sessionId },
      query: { query, max_tokens: maxTokens, session_tokens: sessionTokens, keep_recent: keepRecent, user_id: userId },
    });
  }

  /** Every turn, oldest first. */
  async turns(): Promise<SessionTurn[]> {
    return (await this.show()).turns as SessionTurn[];
  }

  /** The session as chat messages (`{role, content}`): the summary of older turns, then the recent ones. */
  async render(): Promise<{ role: string; content: string }[]> {
    return (await this.show()).messages as { role: string; content: string }[];
  }

  /** The summary of the turns that no longer fit verbatim ("" while they all fit). */
  async summary(): Promise<string> {
    return String((await this.show()).summary ?? "");
  }
}
