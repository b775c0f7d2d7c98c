from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
import redis
from scale.servers import PostgresServer, RedisServer, ServerError

Server = TypeVar("Server", PostgresServer, RedisServer)


def started(make: Callable[[], Server], what: str) -> Server:
    """A running server, or the test fails with why (never a skip: the servers come
    with the dev dependencies)."""
    try:
        server = make()
        server.start()
    except ServerError as exc:
        pytest.fail(f"{what} could not start: {exc}")
    return server


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = started(PostgresServer, "PostgreSQL")
    yield server
    server.remove()


@pytest.fixture
def pg_url(postgres: PostgresServer) -> str:
    return postgres.new_database()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = started(RedisServer, "Redis")
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    redis.Redis.from_url(redis_server.url, socket_timeout=10).flushdb()
    return redis_server.url
