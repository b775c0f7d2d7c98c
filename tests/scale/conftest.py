from collections.abc import Iterator

import pytest
import redis
from scale.servers import PostgresServer, RedisServer, ServerError


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    try:
        server = PostgresServer()
        server.start()
    except ServerError as exc:
        pytest.fail(f"PostgreSQL could not start: {exc}")
    yield server
    server.remove()


@pytest.fixture
def pg_url(postgres: PostgresServer) -> str:
    return postgres.new_database()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        server.start()
    except ServerError as exc:
        pytest.fail(f"Redis could not start: {exc}")
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    redis.Redis.from_url(redis_server.url).flushdb()
    return redis_server.url
