"""Prometheus metrics of the HTTP server (``GET /metrics``): requests and their latency per route
and status. Each app has its own registry, so two servers in one process (tests) do not collide."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

__all__ = ["Metrics"]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("gieok_http_requests_total", "HTTP requests by route, method and status",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("gieok_http_request_seconds", "HTTP request latency by route",
                                 ["route", "method"], registry=self.registry,
                                 buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))

    async def middleware(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        # the route's template (/v1/banks/{bank}/recall), never the path: bank names stay out of labels
        name = getattr(route, "path", "unmatched")
        self.requests.labels(name, request.method, str(response.status_code)).inc()
        self.latency.labels(name, request.method).observe(time.perf_counter() - started)
        return response

    def render(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
