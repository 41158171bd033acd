/**
 * The client against a real `gieok serve`: GIEOK_URL names it and GIEOK_API_KEY is a write key
 * of GIEOK_BANK (tests/test_typescript_client.py starts the server and runs these with `node --test`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { AuthError, Gieok, GieokError, InputError, NotFoundError } from "../src/index.js";

const baseUrl = process.env.GIEOK_URL;
const apiKey = process.env.GIEOK_API_KEY;
if (!baseUrl) throw new Error("set GIEOK_URL to a running `gieok serve` (and GIEOK_API_KEY to a key of it)");

const gieok = new Gieok({ baseUrl, apiKey });
const bank = process.env.GIEOK_BANK ?? "ts-민지";

async function finished(id: string) {
  for (let i = 0; i < 600; i++) {
    const op = await gieok.operation(id);
    if (op.status === "done" || op.status === "failed") return op;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`operation ${id} never finished`);
}

test("retain a Korean chat, recall it and reflect on it", async () => {
  const result = await gieok.retain(bank, {
    document_id: "ko-chat",
    messages: [
      { role: "user", content: "나 땅콩 알레르기 있어.", id: "k1", created_at: "2026-06-01T09:00:00+09:00" },
      { speaker: "user", text: "다음 달에 부산으로 이사 가." },
    ],
  });
  assert.equal(result.source_id, "ko-chat");
  assert.ok(result.facts_added >= 1, `facts added: ${result.facts_added}`);
  const recall = await gieok.recall(bank, "땅콩 알레르기", { max_tokens: 500 });
  assert.ok(recall.memories.some((m) => m.text.includes("땅콩")), JSON.stringify(recall.memories));
  const reflection = await gieok.reflect(bank, "무슨 알레르기가 있어?");
  assert.equal(typeof reflection.answer, "string");
  assert.ok(reflection.answer.length > 0);
});

test("retain an English chat in OpenAI's shape, queued, and recall it", async () => {
  const accepted = await gieok.submitRetain(bank, {
    document_id: "en-chat",
    messages: [{ role: "user", content: "My sister Hana lives in Toronto." },
               { role: "assistant", content: "Noted: Hana is in Toronto." }],
  });
  const op = await finished(accepted.operation_id);
  assert.equal(op.status, "done", op.error ?? "");
  const recall = await gieok.recall(bank, "Where does Hana live?");
  assert.ok(recall.memories.some((m) => m.text.includes("Toronto")), JSON.stringify(recall.memories));
  assert.ok((await gieok.sources(bank)).some((s) => s.id === "en-chat"));
});

test("a session keeps its turns", async () => {
  const session = gieok.session(bank, "chat-1");
  const added = await session.add("user", "오늘 회의는 세 시야.");
  assert.equal(added.position, 0);
  const shown = await session.show();
  assert.ok(JSON.stringify(shown).includes("세 시"));
});

test("profile, lookup and the quarantine answer", async () => {
  assert.ok(Array.isArray(await gieok.profile(bank)));
  const slot = await gieok.lookup(bank, "allergy");
  assert.ok(slot === null || typeof slot === "object");
  assert.ok(Array.isArray(await gieok.quarantined(bank)));
});

test("forget erases a source and proves it", async () => {
  const forgotten = await gieok.forget(bank, { source_id: "ko-chat", verify: true });
  assert.ok(forgotten.memory_ids.length >= 1);
  assert.ok(forgotten.proof, "verify: true asks for a proof");
  const recall = await gieok.recall(bank, "땅콩 알레르기");
  assert.ok(!recall.memories.some((m) => m.text.includes("땅콩")));
});

test("a missing thing is a NotFoundError", async () => {
  await assert.rejects(gieok.get(bank, "no-such-memory"), (error: unknown) => {
    assert.ok(error instanceof NotFoundError && error instanceof GieokError);
    assert.equal(error.status, 404);
    assert.equal(error.kind, "not-found");
    assert.ok(error.message.length > 0);
    return true;
  });
  await assert.rejects(gieok.operation("op-missing"), NotFoundError);
});

test("a bad input is an InputError naming the field", async () => {
  await assert.rejects(gieok.retain(bank, { messages: [{ role: "user" }] }), (error: unknown) => {
    assert.ok(error instanceof InputError);
    assert.equal(error.status, 422);
    assert.match(error.message, /text|content/);
    return true;
  });
  await assert.rejects(gieok.recall(bank, "x", { max_tokens: -1 }), InputError);
});

test("a wrong key is an AuthError", { skip: !apiKey }, async () => {
  const stranger = new Gieok({ baseUrl, apiKey: "gk_wrong" });
  await assert.rejects(stranger.banks(), (error: unknown) => {
    assert.ok(error instanceof AuthError);
    assert.equal(error.status, 401);
    return true;
  });
});
