/**
 * The client against a real `gieok serve`: GIEOK_URL names it, GIEOK_API_KEY is a write key of
 * GIEOK_BANK and GIEOK_ADMIN_KEY an admin key (tests/test_typescript_client.py starts the server,
 * with a second embedder `other-hash` to re-embed into, and runs these with `node --test`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { AuthError, ConflictError, Gieok, GieokError, InputError, NotFoundError, PermissionDeniedError } from "../src/index.js";

const baseUrl = process.env.GIEOK_URL;
const apiKey = process.env.GIEOK_API_KEY;
if (!baseUrl) throw new Error("set GIEOK_URL to a running `gieok serve` (and GIEOK_API_KEY to a key of it)");

const gieok = new Gieok({ baseUrl, apiKey });
const bank = process.env.GIEOK_BANK ?? "ts-민지";
const adminKey = process.env.GIEOK_ADMIN_KEY;
const admin = new Gieok({ baseUrl, apiKey: adminKey });

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

// -- the calls added for parity with the Python Client (tests/test_client_parity.py) ----------------

const KAKAO_KO = `민지 님과 카카오톡 대화
저장한 날짜 : 2024-12-10 09:00:00

--------------- 2024년 12월 9일 월요일 ---------------
[민지] [오후 2:30] 나 다음 달에 부산으로 이사 가
[나] [오후 2:31] 진짜? 해운대 근처야?
[민지] [오후 2:32] 응 해운대 쪽이야
`;
const KAKAO_EN = `Talk_2024.12.10 09:00-1.txt
Date Saved : 2024-12-10 09:00:00

--------------- Monday, December 9, 2024 ---------------
[Tom] [2:30 PM] I'm moving to Denver next month
[Me] [2:31 PM] Where in Denver?
[Tom] [2:32 PM] Near Washington Park
`;

test("ingest a Korean document as text and an English one as bytes", async () => {
  const korean = await gieok.ingest(bank, "# 환불 정책\n\n할인율이 50% 이상인 상품은 환불되지 않습니다.\n",
    { document_id: "refund.md", metadata: { team: "고객지원" } });
  assert.equal(korean.source_id, "refund.md");
  assert.ok(korean.facts_added >= 1 && korean.chars > 0, JSON.stringify(korean));
  const english = await gieok.ingest(bank, new TextEncoder().encode("Orders to Jeju take two extra days to ship.\n"),
    { document_id: "shipping.txt", media_type: "text/plain", tags: ["docs"] });
  assert.equal(english.media_type, "text/plain");
  assert.equal((await gieok.source(bank, "shipping.txt")).id, "shipping.txt");
  const facts = await gieok.sourceFacts(bank, "refund.md");
  assert.ok(JSON.stringify(facts).includes("환불"), JSON.stringify(facts));
  const recall = await gieok.recall(bank, "How long does shipping to Jeju take?");
  assert.ok(recall.memories.some((m) => m.text.includes("Jeju")), JSON.stringify(recall.memories));
  await assert.rejects(gieok.source(bank, "no-such-source"), NotFoundError);
});

test("import KakaoTalk exports in Korean and in English", async () => {
  const korean = await gieok.importChat(bank, KAKAO_KO, "kakaotalk", { name: "민지.txt" });
  assert.equal(korean.format, "kakaotalk");
  assert.equal(korean.messages, 3);
  assert.ok(korean.source_ids.length >= 1);
  const english = await gieok.importChat(bank, new TextEncoder().encode(KAKAO_EN), "kakaotalk",
    { name: "tom.txt", timezone: "America/Denver" });
  assert.equal(english.messages, 3);
  await assert.rejects(gieok.importChat(bank, "x", "no-such-format"), InputError);
});

test("inspect memories: get, history, connections, pin, entities, observations, overview", async () => {
  const recall = await gieok.recall(bank, "부산 이사");
  const memory = recall.memories.find((m) => m.text.includes("부산"));
  assert.ok(memory, JSON.stringify(recall.memories));
  assert.equal((await gieok.get(bank, memory.id)).id, memory.id);
  assert.ok((await gieok.history(bank, memory.id)).some((m) => m.id === memory.id));
  assert.equal(typeof (await gieok.connections(bank, memory.id)), "object");
  assert.equal((await gieok.pin(bank, memory.id)).pinned, true);
  assert.equal((await gieok.pin(bank, memory.id, { pinned: false })).pinned, false);
  const entities = await gieok.entities(bank);
  assert.ok(entities.length >= 1, "the chats name people and places");
  const first = entities[0]!;
  assert.equal(typeof (await gieok.entity(bank, first.name, { limit: 5 })), "object");
  assert.ok(Array.isArray(await gieok.mergeSuggestions(bank, { limit: 5 })));
  assert.ok(Array.isArray(await gieok.observations(bank)));
  const overview = await gieok.overview(bank, { now: "2026-12-05T12:00:00+09:00" });
  assert.equal(typeof overview, "object");
  assert.equal(typeof (await gieok.llmUsage(bank)), "object");
  assert.ok(Array.isArray(await gieok.jobs(bank, { limit: 10 })));
});

test("a session's turns, rendered messages and summary, in Korean and English", async () => {
  const session = gieok.session(bank, "chat-2", { userId: "minji", keepRecent: 2 });
  await session.add("user", "내일 강남역에서 일곱 시에 보자.");
  await session.add("assistant", "Sure, 7 pm at Gangnam station.");
  const turns = await session.turns();
  assert.deepEqual(turns.map((t) => t.role), ["user", "assistant"]);
  assert.ok((await session.render()).some((m) => m.content.includes("Gangnam")));
  assert.equal(typeof (await session.summary()), "string");
  await assert.rejects(gieok.session(bank, "chat-2", { userId: "someone-else" }).add("user", "hi"), InputError);
});

test("mental models: add, read, list and delete", async () => {
  await gieok.addMentalModel(bank, "이사", "민지는 어디로 이사 가?", { refresh: false });
  await gieok.addMentalModel(bank, "moving", "Where is Tom moving?", { refresh: false });
  const model = await gieok.mentalModel(bank, "이사");
  assert.equal(model.question, "민지는 어디로 이사 가?");
  assert.deepEqual((await gieok.mentalModels(bank)).map((m) => m.name).sort(), ["moving", "이사"]);
  await gieok.deleteMentalModel(bank, "moving");
  await assert.rejects(gieok.mentalModel(bank, "moving"), NotFoundError);
});

test("operations: a finished one cannot be cancelled or retried", async () => {
  const accepted = await gieok.submitRetain(bank, { text: "Tom's sister Ana is a nurse.", document_id: "ana" });
  const op = await finished(accepted.operation_id);
  await assert.rejects(gieok.cancelOperation(op.id), ConflictError);
  await assert.rejects(gieok.retryOperation(op.id), ConflictError);
});

test("an admin key's calls: keys, bank configuration, every bank's jobs", { skip: !adminKey }, async () => {
  const created = await admin.createKey({ role: "read", banks: [bank], name: "읽기 전용" });
  const keyId = Number(created.id);
  assert.ok((await admin.keys()).some((k) => k.id === keyId && k.name === "읽기 전용"));
  const reader = new Gieok({ baseUrl, apiKey: String(created.key) });
  assert.ok(Array.isArray(await reader.sources(bank)));
  await assert.rejects(reader.forget(bank, { source_id: "ana" }), PermissionDeniedError);
  assert.ok((await admin.revokeKey(keyId)).revoked_at);
  await assert.rejects(reader.sources(bank), AuthError);

  await assert.rejects(gieok.redactionPolicy(bank), PermissionDeniedError); // a write key is not enough
  const policy = await admin.setRedactionPolicy(bank, { default: "redact", email: "allow" });
  assert.equal(policy.email, "allow");
  assert.equal((await admin.redactionPolicy(bank)).default, "redact");
  assert.ok(Array.isArray(await admin.auditLog(bank, { limit: 10 })));
  assert.equal(await admin.configureDecisions(bank, "learned"), "learned");
  assert.ok(Array.isArray(await admin.jobs(undefined, { limit: 5 })));
  assert.equal(typeof (await admin.health()), "object");
  assert.equal(typeof (await admin.ready()), "boolean");
  assert.match(await admin.metrics(), /^# (HELP|TYPE)/m);
});

test("an admin creates a bank, re-embeds it and deletes it", { skip: !adminKey }, async () => {
  const created = await admin.createBank("ts-새-bank");
  assert.equal(created.name, "ts-새-bank");
  assert.ok((await admin.banks()).some((b) => b.name === "ts-새-bank"));
  await admin.retain("ts-새-bank", { text: "민지는 부산에 살아. Minji lives in Busan." });
  const op = await admin.reembed("ts-새-bank", "other-hash", { wait: true, pollMs: 50 });
  assert.equal(op.status, "done", op.error ?? "");
  await assert.rejects(admin.reembed("ts-새-bank", "no-such-embedder"), InputError);
  await admin.deleteBank("ts-새-bank");
  assert.ok(!(await admin.banks()).some((b) => b.name === "ts-새-bank"));
});
