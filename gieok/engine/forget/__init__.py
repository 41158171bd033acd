"""Erasure: run (hard delete with proof), the entity graph's share (entities, entity_facts) and the
forms an erased text lives on in (forms)."""
