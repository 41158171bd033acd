/**
 * One HTTP call to a gieok server, typed by the routes of `schema.ts` (generated from the server's
 * OpenAPI schema): the path, query and body a route takes and the answer it gives come from there,
 * so a route, parameter or field the server does not have is a compile error, not a 404 at run time.
 * A JSON body is sent as JSON; a route that takes a file (`application/octet-stream`) takes `bytes`.
 */
import type { paths } from "./schema.js";
import { errorFor, GieokError } from "./errors.js";

export type Method = "get" | "post" | "put" | "delete";
export type Route<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { "application/json": infer J } } ? J
  : R extends { content: { "text/plain": infer T } } ? T : never;
/** what a route answers on success: 200's body, else 201's or 202's */
export type Answer<P extends keyof paths, M extends Method> = Route<P, M> extends { responses: infer R }
  ? R extends { 200: infer A } ? Json<A> : R extends { 201: infer B } ? Json<B> : R extends { 202: infer C } ? Json<C> : never
  : never;
/** a route's query parameters */
export type Query<P extends keyof paths, M extends Method> =
  Route<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** a file's content: bytes, a Blob (a browser's File) or text (sent as UTF-8) */
export type FileData = Uint8Array | ArrayBuffer | Blob | string;
export type Parts<P extends keyof paths, M extends Method> = {
  path?: Route<P, M> extends { parameters: { path: infer X } } ? X : never;
  query?: Query<P, M>;
  body?: Route<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
  bytes?: Route<P, M> extends { requestBody: { content: { "application/octet-stream": unknown } } } ? FileData : never;
  /** the bytes' media type (default `application/octet-stream`: the server goes by the file's name) */
  mediaType?: string;
};

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** Send one call; answers the parsed body, or throws the typed error of `errors.ts`. */
export async function send<P extends keyof paths, M extends Method>(
  options: TransportOptions, method: M, route: P, parts: Parts<P, M>,
): Promise<Answer<P, M>> {
  const url = options.baseUrl + fill(route, parts.path as Record<string, string | number> | undefined)
    + search(parts.query as Record<string, unknown> | undefined);
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  let body: string | Uint8Array | ArrayBuffer | Blob | undefined;
  if (parts.bytes !== undefined) {
    headers["Content-Type"] = parts.mediaType ?? "application/octet-stream";
    body = typeof parts.bytes === "string" ? new TextEncoder().encode(parts.bytes) : parts.bytes;
  } else if (parts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(parts.body);
  }
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: method.toUpperCase(), headers, body: body as BodyInit | undefined,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (cause) {
    throw new GieokError({
      type: "unreachable", title: "unreachable", status: 0,
      detail: `cannot reach the gieok server at ${options.baseUrl}: ${String(cause)} (is \`gieok serve\` running there?)`,
    });
  }
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").includes("json");
  const data: unknown = !text ? null : isJson || !response.ok ? parseJson(text) : text;
  if (!response.ok) throw errorFor(response.status, data);
  return data as Answer<P, M>;
}

function fill(route: string, path: Record<string, string | number> | undefined): string {
  // a bank or id is one path segment, whatever its letters (Korean included)
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path?.[name];
    if (value === undefined) throw new TypeError(`${route}: ${name} is missing`);
    return encodeURIComponent(String(value));
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
