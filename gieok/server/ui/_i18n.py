"""The UI's words in English and Korean, and which language a request gets.

A ``?lang=ko|en`` link sets a cookie; without one the browser's Accept-Language decides (the first
of ko / en it names, by quality), else English. Every key has both languages (a test checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

__all__ = ["LANGUAGES", "STRINGS", "pick_language", "translator"]

LANGUAGES = ("en", "ko")

# key: (English, Korean)
STRINGS: dict[str, tuple[str, str]] = {
    "app": ("gieok memory", "gieok 기억"),
    "banks": ("Banks", "뱅크"),
    "bank": ("Bank", "뱅크"),
    "overview": ("Overview", "개요"),
    "shaping": ("How reflect answers", "숙고의 답변 방식"),
    "shaping_saved": ("Saved: reflect answers this way from now on.", "저장했습니다: 이제부터 숙고는 이렇게 답합니다."),
    "shaping_no_name": ("(no name)", "(이름 없음)"),
    "shaping_edit": ("Change the disposition and directives", "성향과 지침 바꾸기"),
    "shaping_name": ("Name", "이름"),
    "shaping_background": ("Background", "배경"),
    "skepticism": ("skepticism", "회의"),
    "literalism": ("literalism", "문자 그대로"),
    "empathy": ("empathy", "공감"),
    "neutral": ("neutral", "중립"),
    "enforced": ("enforced in code", "코드로 강제"),
    "prompt_only": ("LLM prompt only", "LLM 프롬프트에만"),
    "no_directives": ("No directives.", "지침이 없습니다."),
    "directives_help": ("Directives, one a line (e.g. \"Never give medical dosages\", \"답변은 존댓말로\")",
                        "지침, 한 줄에 하나씩 (예: \"약 복용량은 절대 알려주지 마\", \"Answer in English\")"),
    "save": ("Save", "저장"),
    "entities": ("Entities", "엔티티"),
    "entity": ("Entity", "엔티티"),
    "recall": ("Recall", "회상"),
    "reflect": ("Reflect", "숙고"),
    "jobs": ("Jobs & audit", "작업·감사"),
    "erase": ("Erase", "삭제"),
    "language": ("Language", "언어"),
    "logout": ("Log out", "로그아웃"),
    "login": ("Log in", "로그인"),
    "login_help": ("This server requires an API key. It is kept in an HttpOnly cookie for this browser only.",
                   "이 서버는 API 키가 필요합니다. 키는 이 브라우저의 HttpOnly 쿠키에만 보관됩니다."),
    "api_key": ("API key", "API 키"),
    "keys_off": ("Keys are off: anyone who can reach this server sees every bank.",
                 "키가 꺼져 있습니다: 이 서버에 접속할 수 있으면 누구나 모든 뱅크를 봅니다."),
    "sources": ("Sources", "출처"),
    "source": ("Source", "출처"),
    "facts": ("Facts", "사실"),
    "fact": ("Fact", "사실"),
    "observations": ("Observations", "관찰"),
    "size": ("Size on disk", "디스크 크기"),
    "bank_size": ("Size", "크기"),
    "bank_size_note": ("about: its text and one vector per fact", "대략: 텍스트와 사실마다 벡터 하나"),
    "size_note": ("the database file, shared by every bank", "모든 뱅크가 함께 쓰는 데이터베이스 파일"),
    "size_unknown": ("not a local file", "로컬 파일이 아님"),
    "last_activity": ("Last activity", "최근 활동"),
    "jobs_pending": ("Jobs pending", "대기 작업"),
    "create_bank": ("Create a bank", "뱅크 만들기"),
    "create": ("Create", "만들기"),
    "name": ("Name", "이름"),
    "delete": ("Delete", "삭제"),
    "delete_confirm": ("Type the bank name to delete it and everything in it",
                       "삭제하려면 뱅크 이름을 입력하세요 (안의 모든 것이 지워집니다)"),
    "delete_mismatch": ("The name typed does not match the bank: nothing was deleted.",
                        "입력한 이름이 뱅크와 다릅니다: 아무것도 삭제되지 않았습니다."),
    "deleted": ("Deleted", "삭제됨"),
    "no_banks": ("No banks yet: retain something or create one.",
                 "아직 뱅크가 없습니다: 무언가를 기억시키거나 만드세요."),
    "timeline": ("Facts per week by decay class", "주별 사실 수 (감쇠 등급별)"),
    "superseded": ("Superseded", "대체됨"),
    "expired": ("Expired", "만료됨"),
    "archived": ("Faded (archived)", "희미해짐(보관)"),
    "pinned": ("Pinned", "고정"),
    "search": ("Search this bank", "이 뱅크 검색"),
    "search_button": ("Search", "검색"),
    "kind": ("Kind", "종류"),
    "created": ("Created", "생성"),
    "updated": ("Updated", "수정"),
    "messages": ("Messages", "메시지"),
    "document": ("Document", "문서"),
    "conversation": ("Conversation", "대화"),
    "no_sources": ("No sources.", "출처가 없습니다."),
    "produced": ("Facts from this message", "이 메시지에서 나온 사실"),
    "no_facts_here": ("no fact", "사실 없음"),
    "redacted_note": ("Marked parts were redacted before storing: the value was never kept.",
                      "표시된 부분은 저장 전에 가려졌습니다: 값은 보관되지 않았습니다."),
    "provenance": ("Provenance", "출처 정보"),
    "speaker": ("Speaker", "화자"),
    "occurred": ("Occurred", "발생"),
    "mentioned": ("Mentioned", "언급"),
    "valid": ("Valid", "유효"),
    "decay_class": ("Decay class", "감쇠 등급"),
    "strength": ("Strength", "강도"),
    "versions": ("Version chain", "버전 사슬"),
    "supersedes": ("Supersedes", "대체한 것"),
    "superseded_by": ("Superseded by", "대체한 버전"),
    "this_version": ("this version", "이 버전"),
    "links": ("Links", "링크"),
    "no_links": ("No links.", "링크가 없습니다."),
    "pin": ("Pin", "고정"),
    "unpin": ("Unpin", "고정 해제"),
    "forget_fact": ("Forget this fact (with proof)", "이 사실 잊기 (증명 포함)"),
    "forget_confirm": ("Erase for real? This cannot be undone.", "정말 지울까요? 되돌릴 수 없습니다."),
    "yes": ("yes", "예"),
    "no": ("no", "아니요"),
    "open": ("open", "열림"),
    "now_word": ("now", "지금"),
    "mentions": ("Mentions", "언급 수"),
    "aliases": ("Aliases", "별칭"),
    "last_seen": ("Last seen", "마지막 언급"),
    "neighbourhood": ("Neighbourhood (co-mentioned entities)", "이웃 (함께 언급된 엔티티)"),
    "no_neighbours": ("No co-mentioned entities.", "함께 언급된 엔티티가 없습니다."),
    "merge_suggestions": ("Merge suggestions", "병합 제안"),
    "merge_none": ("No two entities here have names that could be one person or thing.",
                   "한 사람이나 같은 대상일 수 있는 이름의 엔티티 쌍이 없습니다."),
    "merge_why": ("Why", "이유"),
    "merge_similarity": ("Name similarity", "이름 유사도"),
    "merge_note": ("Retain links a mention only when it is sure; these pairs were kept apart. Namesakes "
                   "(김민지 / 이민지, John / Jane Smith) are never suggested.",
                   "기억할 때 확실한 경우에만 언급을 연결하므로 이 쌍들은 따로 남았습니다. 동명이인(김민지 / 이민지, "
                   "John / Jane Smith)은 제안하지 않습니다."),
    "merge_reason_100": ("the same name", "같은 이름"),
    "merge_reason_95": ("the same words in another order", "순서만 다른 같은 단어"),
    "merge_reason_90": ("one name is a part of the other", "한 이름이 다른 이름의 일부"),
    "merge_reason_50": ("a surname and a title the other has not been called", "성과 다른 쪽이 불린 적 없는 직함"),
    "no_entities": ("No entities.", "엔티티가 없습니다."),
    "query": ("Query", "질의"),
    "now": ("Now (anchors 'last week')", "기준 시각 ('지난주'의 기준)"),
    "as_of": ("As of (the bank as it stood then)", "시점 (그때의 뱅크)"),
    "max_tokens": ("Token budget", "토큰 예산"),
    "run": ("Run", "실행"),
    "results": ("Results", "결과"),
    "no_results": ("Nothing found.", "찾은 것이 없습니다."),
    "fused": ("Fused", "융합"),
    "score": ("Score", "점수"),
    "rank": ("rank", "순위"),
    "channels": ("Channels", "채널"),
    "multipliers": ("Multipliers", "보정 계수"),
    "ranker": ("Ranker: what moved the score", "순위 모델: 점수를 움직인 특징"),
    "budget": ("Token budget", "토큰 예산"),
    "tokens": ("tokens", "토큰"),
    "no_budget": ("no budget: limited by count", "예산 없음: 개수로 제한"),
    "time_range": ("Time range from the query", "질의에서 읽은 기간"),
    "user_id": ("User id (only this user's memories)", "사용자 id (이 사용자의 기억만)"),
    "include_shared": ("with a user: also shared memories (retained without one)",
                       "사용자를 주면: 공유 기억(사용자 없이 기억된 것)도 포함"),
    "user": ("user", "사용자"),
    "user_title": ("whose memory it is: the user_id given on retain", "누구의 기억인지: 기억할 때 준 user_id"),
    "shared": ("shared", "공유"),
    "shared_title": ("retained without a user: every user's recall may see it",
                     "사용자 없이 기억됨: 모든 사용자의 회상에 나올 수 있습니다"),
    "filter_user_shared": ("Only the memories of {user} and shared ones.", "{user}의 기억과 공유 기억만 봅니다."),
    "filter_user_only": ("Only the memories of {user}.", "{user}의 기억만 봅니다."),
    "question": ("Question", "질문"),
    "ask": ("Ask", "묻기"),
    "answer": ("Answer", "답"),
    "verified_quotes": ("Verified quotes in their source messages", "원본 메시지 속 검증된 인용"),
    "refused": ("Refused", "답하지 않음"),
    "refusal_nothing_found": ("No memory came back for this question.", "이 질문에 돌아온 기억이 없습니다."),
    "refusal_insufficient": ("Memories came back, but none says what was asked.",
                             "기억은 찾았지만 질문에 답하는 것이 없습니다."),
    "steps": ("Steps", "단계"),
    "dropped_quotes": ("Quotes dropped (not found verbatim)", "버린 인용 (원문과 다름)"),
    "mode": ("Mode", "방식"),
    "queue": ("Job queue", "작업 대기열"),
    "queued": ("queued", "대기"),
    "running": ("running", "실행 중"),
    "failed": ("failed", "실패"),
    "done": ("done", "완료"),
    "status": ("Status", "상태"),
    "attempts": ("Attempts", "시도"),
    "error": ("Error", "오류"),
    "no_jobs": ("No jobs.", "작업이 없습니다."),
    "retry_note": ("A failed job is retried by the worker with backoff until its last attempt; then it stays failed "
                   "until you retry it. Cancel stops a queued or running job (a running retain writes nothing).",
                   "실패한 작업은 워커가 간격을 늘려 가며 마지막 시도까지 다시 실행하고, "
                   "그 뒤에는 다시 시도를 누를 때까지 실패로 남습니다. 취소는 대기 중이거나 실행 중인 작업을 "
                   "멈춥니다 (실행 중인 retain은 아무것도 쓰지 않습니다)."),
    "cancelled": ("cancelled", "취소됨"),
    "cancel": ("Cancel", "취소"),
    "retry": ("Retry", "다시 시도"),
    "job_cancelled": ("Job {op} cancelled.", "작업 {op}을(를) 취소했습니다."),
    "job_retried": ("Job {op} queued again.", "작업 {op}을(를) 다시 대기열에 넣었습니다."),
    "quarantine": ("Quarantine", "격리"),
    "quarantine_help": ("Statements below the user's own words (a document, web page, tool output or the assistant) "
                        "that read as instructions to the assistant were held back at retain: kept verbatim in "
                        "their source, not facts. Read one before releasing it: it may be an injection.",
                        "사용자 본인의 말보다 신뢰가 낮은 출처(문서, 웹 페이지, 도구 출력, 어시스턴트)에서 온 문장 중 "
                        "어시스턴트에게 내리는 지시처럼 읽히는 것은 기억할 때 보류되었습니다: 출처에 원문 그대로 "
                        "남아 있지만 사실이 아닙니다. 풀어 주기 전에 읽어 보세요: 주입 공격일 수 있습니다."),
    "no_held": ("Nothing is held.", "보류된 것이 없습니다."),
    "held_at": ("Held at", "보류 시각"),
    "trust": ("Trust", "신뢰"),
    "reason": ("Reason", "이유"),
    "statement": ("Statement", "문장"),
    "release": ("Release", "풀어 주기"),
    "dismiss": ("Dismiss", "버리기"),
    "erase_source": ("Erase its source", "출처 지우기"),
    "release_confirm": ("Make this statement a memory? It was held as a likely injection.",
                        "이 문장을 기억으로 만들까요? 주입 공격으로 의심되어 보류된 것입니다."),
    "held_released": ("{held} released as {memory}.", "{held}을(를) {memory}(으)로 풀어 주었습니다."),
    "held_dismissed": ("{held} dismissed: it stays only in its source.",
                       "{held}을(를) 버렸습니다: 출처에만 남습니다."),
    "trust_assistant": ("from the assistant", "어시스턴트의 말"),
    "trust_document": ("from a document", "문서에서"),
    "trust_web": ("from the web", "웹에서"),
    "trust_tool": ("from a tool", "도구에서"),
    "trust_title": ("a less trusted source than the user's own words",
                    "사용자 본인의 말보다 신뢰가 낮은 출처"),
    "audit": ("Audit log (types, positions and fingerprints; never values)", "감사 기록 (종류·위치·지문; 값은 없음)"),
    "no_audit": ("No audit entries.", "감사 기록이 없습니다."),
    "at": ("At", "시각"),
    "operation": ("Operation", "작업"),
    "item": ("Item", "항목"),
    "type": ("Type", "종류"),
    "position": ("Position", "위치"),
    "fingerprint": ("Fingerprint", "지문"),
    "action": ("Action", "조치"),
    "llm_usage": ("LLM usage and spend per day", "일별 LLM 사용량과 비용"),
    "offline_llm": ("This bank runs offline: no LLM is configured, nothing is spent.",
                    "이 뱅크는 오프라인으로 동작합니다: LLM이 없고 비용도 없습니다."),
    "spent": ("Spent", "사용액"),
    "limit": ("Ceiling", "한도"),
    "day": ("Day", "날짜"),
    "calls": ("Calls", "호출"),
    "cost": ("Cost", "비용"),
    "erase_help": ("Erase for real: facts, links, mentions, vectors, index rows and the verbatim evidence go; "
                   "the proof then looks for every derived form in every table and the file's bytes.",
                   "진짜로 지웁니다: 사실·링크·언급·벡터·색인과 원문 증거까지 사라지고, 증명은 파생된 모든 형태를 "
                   "모든 테이블과 파일 바이트에서 찾습니다."),
    "by_source": ("By source", "출처로"),
    "by_entity": ("By entity", "엔티티로"),
    "before_date": ("Everything said before a date", "날짜 이전에 말한 모든 것"),
    "erase_button": ("Erase and prove", "지우고 증명"),
    "proof": ("Erasure proof", "삭제 증명"),
    "clean": ("Clean: nothing of it is left", "깨끗함: 남은 것이 없습니다"),
    "not_clean": ("NOT clean: traces were found", "깨끗하지 않음: 흔적이 남았습니다"),
    "checked": ("Checked", "검사한 곳"),
    "found": ("Found in", "발견된 곳"),
    "vacuumed": ("File vacuumed and its bytes scanned", "파일을 VACUUM하고 바이트를 검사함"),
    "probed": ("Forms probed", "검사한 형태 수"),
    "erased": ("Erased", "지운 것"),
    "memory_ids": ("Memory ids", "기억 id"),
    "checkpointed": ("Write-ahead log checkpointed", "WAL 체크포인트 완료"),
    "back_to_bank": ("Back to the bank", "뱅크로 돌아가기"),
    "error_title": ("Something went wrong", "문제가 생겼습니다"),
    "error_401": ("A key is needed", "키가 필요합니다"),
    "error_403": ("Not allowed", "허용되지 않음"),
    "error_404": ("Not found", "찾을 수 없음"),
    "error_422": ("Check the input", "입력을 확인하세요"),
    "error_500": ("The server failed", "서버 오류"),
    "csrf_refused": ("This form has expired or did not come from this page: reload and try again.",
                     "이 양식은 만료되었거나 이 페이지에서 온 것이 아닙니다: 새로고침 후 다시 시도하세요."),
    "choose": ("choose…", "선택…"),
    "none": ("none", "없음"),
    "pinned_class": ("pinned", "고정"),
    "stable_class": ("stable", "안정"),
    "transient_class": ("transient", "일시"),
    "ms": ("rendered in", "렌더링"),
}


def pick_language(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """``query`` (?lang=) first, then the cookie, then the best of ko/en in Accept-Language."""
    for chosen in (query, cookie):
        if chosen in LANGUAGES:
            return str(chosen)
    best, best_q = "en", -1.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        base = tag.strip().lower().split("-")[0]
        if base not in LANGUAGES:
            continue
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if q > best_q:
            best, best_q = base, q
    return best


def translator(language: str, strings: Mapping[str, tuple[str, str]] = STRINGS) -> Callable[[str], str]:
    """``t(key)``: the string ``key`` in ``language`` (the key itself if it has none)."""
    index = LANGUAGES.index(language)

    def t(key: str) -> str:
        pair = strings.get(key)
        return pair[index] if pair else key

    return t
