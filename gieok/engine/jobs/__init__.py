"""Background work: the durable queue (queue) and the jobs it runs: maintenance (decay, TTL),
consolidate (observations) and reembed (moving a bank to another embedder)."""
