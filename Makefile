PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint docs docs-serve bench bench-coldstart bench-beam bench-locomo bench-korean bench-knowledge bench-supersede bench-reflect bench-perf bench-load bench-erasure bench-filler bench-serve bench-redaction bench-big-retain bench-long-retain bench-documents bench-workers bench-recall-gate bench-scopes bench-scale bench-ann bench-profile bench-reembed bench-portability bench-quarantine bench-updates bench-slots train-filler train-instructions train-slots train-decisions clean train-entity-kind bench-entity-kind bench-slot-questions train-slot-questions bench-answerable train-answerable bench-triage train-triage train-ranker bench-ranker

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,documents]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gieok demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

docs: $(STAMP)
	$(BIN)/python -m gieok._docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

lint: $(STAMP)
	$(BIN)/ruff check gieok tests bench tools
	$(BIN)/mypy gieok
	$(BIN)/python tools/check_layers.py

bench-locomo: $(STAMP)
	$(BIN)/python bench/locomo.py

bench-korean: $(STAMP)
	$(BIN)/python bench/locomo.py --data bench/data/korean_multisession.json

bench-knowledge: $(STAMP)
	$(BIN)/python bench/knowledge_update.py --all-baselines

bench-supersede: $(STAMP)
	$(BIN)/python bench/supersede.py --locomo

bench-reflect: $(STAMP)
	$(BIN)/python bench/reflect.py
	$(BIN)/python bench/reflect.py --data bench/data/korean_multisession.json --adversarial bench/data/korean_adversarial.json

bench-perf: $(STAMP)
	$(BIN)/python bench/perf.py

bench-load: $(STAMP)
	$(BIN)/python bench/load.py

bench-big-retain: $(STAMP)
	$(BIN)/python bench/big_retain.py

bench-long-retain: $(STAMP)
	$(BIN)/python bench/long_retain.py

bench-erasure: $(STAMP)
	$(BIN)/python bench/erasure.py

bench-scopes: $(STAMP)
	$(BIN)/python bench/scopes.py

bench-filler: $(STAMP)
	$(BIN)/python bench/filler.py


bench-beam: $(STAMP)
	$(BIN)/python bench/beam.py

bench-recall-gate: $(STAMP)
	$(BIN)/python bench/recall_gate.py

bench-serve: $(STAMP)
	$(BIN)/python bench/serve.py

bench-redaction: $(STAMP)
	$(BIN)/python bench/redaction.py

bench-workers: $(STAMP)
	$(BIN)/python bench/workers.py

bench-scale: $(STAMP)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 $(BIN)/python bench/scale.py

bench-ann: $(STAMP)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 $(BIN)/python bench/ann_recall.py

bench-documents: $(STAMP)
	$(BIN)/python bench/documents.py

bench: bench-ranker bench-locomo bench-korean bench-knowledge bench-supersede bench-reflect bench-perf bench-load bench-erasure bench-filler bench-serve bench-redaction bench-documents bench-big-retain bench-long-retain bench-workers bench-recall-gate bench-profile bench-scopes bench-scale bench-ann bench-beam bench-reembed bench-quarantine bench-updates bench-slots bench-entity-kind bench-slot-questions bench-answerable bench-triage bench-coldstart bench-portability

clean:
	rm -rf $(VENV) build *.egg-info

bench-profile: $(STAMP)
	$(BIN)/python bench/profile_slots.py

# recall's learned ranker: candidate pools of every training set (banks cached), then LightGBM (deterministic)
train-ranker: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[train]'
	$(BIN)/python bench/ranker_pool.py
	$(BIN)/python bench/train_ranker.py

# held-out folds, the blind split and the pool's ceiling (writes no model)
bench-ranker: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[train]'
	$(BIN)/python bench/ranker_pool.py
	$(BIN)/python bench/train_ranker.py --measure --dry-run

train-filler: $(STAMP)
	$(BIN)/python bench/train_filler.py

train-instructions: $(STAMP)
	$(BIN)/python bench/train_instructions.py

# every head of the learned decision model, retrained from bench/data (deterministic)
train-decisions: train-filler train-instructions train-slots train-slot-questions train-entity-kind train-answerable train-triage

train-slots: $(STAMP)
	$(BIN)/python bench/train_slots.py

bench-slots: $(STAMP)
	$(BIN)/python bench/train_slots.py --measure

train-entity-kind: $(STAMP)
	$(BIN)/python bench/train_entity_kind.py

bench-entity-kind: $(STAMP)
	$(BIN)/python bench/entity_kind.py

train-slot-questions: $(STAMP)
	$(BIN)/python bench/train_slot_questions.py

bench-slot-questions: $(STAMP)
	$(BIN)/python bench/slot_questions.py

train-answerable: $(STAMP)
	$(BIN)/python bench/train_answerable.py

bench-answerable: $(STAMP)
	$(BIN)/python bench/answerable.py

train-triage: $(STAMP)
	$(BIN)/python bench/train_triage.py

bench-triage: $(STAMP)
	$(BIN)/python bench/triage.py

bench-quarantine: $(STAMP)
	$(BIN)/python bench/quarantine.py

bench-updates: $(STAMP)
	$(BIN)/python bench/train_updates.py

bench-portability: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python bench/portability.py --facts 10000
	OMP_NUM_THREADS=1 $(BIN)/python bench/portability.py --facts 10000 --store postgres

bench-reembed: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python bench/reembed.py --facts 2000 --to use-multilingual
	OMP_NUM_THREADS=1 $(BIN)/python bench/reembed.py --facts 2000 --to e5-small
	OMP_NUM_THREADS=1 $(BIN)/python bench/reembed.py --facts 2000 --to use-multilingual --store postgres

bench-coldstart: $(STAMP)
	$(BIN)/python bench/coldstart.py
