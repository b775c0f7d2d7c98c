"""Secrets never reach the audit trail: not in stored arguments, raw argument text, error
messages, validation errors or policy violations (issue 11, security)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
import pytest

from toolwire.audit import MemorySink, redact
from toolwire.audit.record import ExecutionRecord
from toolwire.audit.redact import (
    REDACTED,
    arguments_hash,
    canonical_json,
    is_secret_key,
    redact_text,
)
from toolwire.engine import PathPolicy, RequireApproval, ToolEngine
from toolwire.engine.policy import Decision, PolicyRequest
from toolwire.spec import ToolSpec
from toolwire.tools import ToolHints, tool
from toolwire.tools.base import ToolOutput

# (secret, arguments, error the tool raises; None: the arguments' repr, as many tools do)
SECRETS: list[tuple[str, dict[str, Any], str | None]] = [
    # keys that name a secret, in any case style, plural or short
    ("Tr0ub4dor&3", {"user": "bob", "password": "Tr0ub4dor&3"}, None),
    ("correct-horse-1", {"passwords": ["correct-horse-1", "battery-2"]}, None),
    ("k-93jf8a7sd", {"api_keys": ["k-93jf8a7sd"]}, None),
    ("s3cr3t-db-val", {"secrets": {"db": "s3cr3t-db-val"}}, None),
    ("tok-4f9a2b7c", {"tokens": ["tok-4f9a2b7c"]}, None),
    ("pg-pass-771", {"PGPASSWORD": "pg-pass-771"}, None),
    ("dbpass-9981", {"DB_PASS": "dbpass-9981"}, None),
    ("plainpass-42", {"pass": "plainpass-42"}, None),
    ("pw-value-77", {"pw": "pw-value-77"}, None),
    ("AAAAB3NzaC1yc2EAAAAD", {"ssh_key": "ssh-rsa AAAAB3NzaC1yc2EAAAAD"}, None),
    ("sess-0a9b8c7d", {"sessionid": "sess-0a9b8c7d"}, None),
    ("camel-key-123", {"apiKey": "camel-key-123"}, None),
    ("hdr-key-5566", {"X-Api-Key": "hdr-key-5566"}, None),
    ("cs-0011aa", {"client_secret": "cs-0011aa"}, None),
    ("Ym9iOmh1bnRlcjI=", {"Authorization": "Basic Ym9iOmh1bnRlcjI="}, None),
    ("at-7788zz", {"access_token": "at-7788zz"}, None),
    ("pk-material-xyz", {"private_key": "pk-material-xyz"}, None),
    ("cred-pw-4455", {"credentials": {"user": "bob", "password": "cred-pw-4455"}}, None),
    ("mysqlpwd-3344", {"MYSQL_PWD": "mysqlpwd-3344"}, None),
    ("rt-99aa88bb", {"refreshToken": "rt-99aa88bb"}, None),
    ("long passphrase words", {"passphrase": "long passphrase words"}, None),
    ("ck-123abc", {"cookie": "sid=ck-123abc"}, None),
    # nested values
    ("nested-pg-1", {"opts": {"env": {"PGPASSWORD": "nested-pg-1"}}}, None),
    ("list-nested-pw", {"servers": [{"host": "db", "password": "list-nested-pw"}]}, None),
    (
        "nested-bearer-tok-123",
        {"config": {"headers": {"Authorization": "Bearer nested-bearer-tok-123"}}},
        None,
    ),
    # well-known shapes inside any string
    ("sk_live_51HabcdEFGhijkLMNop", {"note": "key is sk_live_51HabcdEFGhijkLMNop"}, None),
    ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", {"note": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"}, None),
    ("glpat-AbCdEfGhIjKlMnOpQrSt", {"note": "use glpat-AbCdEfGhIjKlMnOpQrSt"}, None),
    (
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        {"text": "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"},
        None,
    ),
    ("sk-proj-AbCdEfGhIjKlMnOpQrStUv", {"note": "OPENAI=sk-proj-AbCdEfGhIjKlMnOpQrStUv"}, None),
    ("AKIAIOSFODNN7EXAMPLE", {"note": "id AKIAIOSFODNN7EXAMPLE"}, None),
    (
        "eyJzdWIiOiIxMjM0In0",
        {"note": "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r"},
        None,
    ),
    ("xoxb-123456789012-abcdefABCDEF", {"note": "xoxb-123456789012-abcdefABCDEF"}, None),
    (
        "MIIEpAIBAAKCAQEA7bq",
        {
            "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\n"
            "-----END RSA PRIVATE KEY-----"
        },
        None,
    ),
    ("url-pw-8877", {"dsn": "postgres://app:url-pw-8877@db:5432/app"}, None),
    ("AIzaSyA-abcdefghijklmnopqrstuvwxyz012", {"q": "AIzaSyA-abcdefghijklmnopqrstuvwxyz012"}, None),
    (
        "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        {"q": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
        None,
    ),
    ("qs-key-2468", {"url": "https://api.example.com/v1?api_key=qs-key-2468&q=x"}, None),
    ("overlap-pw-1", {"note": "token_type: password=overlap-pw-1"}, None),
    # command strings and argv lists
    ("cmd-pg-2211", {"command": "PGPASSWORD=cmd-pg-2211 psql -h db -U app"}, None),
    ("mysql-glued-99", {"command": "mysql -uroot -pmysql-glued-99 app"}, None),
    ("curl-pw-6655", {"command": "curl -u bob:curl-pw-6655 https://api.example.com"}, None),
    ("curl-hdr-1212", {"command": "curl -H 'X-Api-Key: curl-hdr-1212' https://api"}, None),
    (
        "curl-bearer-3434xyz",
        {"command": 'curl -H "Authorization: Bearer curl-bearer-3434xyz" x'},
        None,
    ),
    ("flag-tok-5656", {"cmd": "deploy --token flag-tok-5656 --verbose"}, None),
    ("aws-sec-7878", {"Command": "export AWS_SECRET_ACCESS_KEY=aws-sec-7878"}, None),
    ("sshpass-pw-9090", {"argv": ["sshpass", "-p", "sshpass-pw-9090", "ssh", "host"]}, None),
    ("argv-pw-1357", {"argv": ["mysql", "--password", "argv-pw-1357"]}, None),
    ("eq-pw-2468", {"argv": ["psql", "--password=eq-pw-2468"]}, None),
    # error messages
    (
        "err-pw-1122",
        {"user": "bob", "password": "err-pw-1122"},
        "bad credentials for bob:err-pw-1122",
    ),
    ("err-tok-3344", {"token": "err-tok-3344"}, "upstream said: invalid token err-tok-3344"),
    ("err-bearer-5566abc", {"url": "https://svc"}, "sent Authorization: Bearer err-bearer-5566abc"),
    ("err-dump-7788", {"url": "https://svc"}, "config: {'api_key': 'err-dump-7788', 'retries': 3}"),
    ("err-url-9900", {"url": "https://svc"}, "login failed for postgres://app:err-url-9900@db/app"),
    (
        "err-cmd-4321",
        {"command": "PGPASSWORD=err-cmd-4321 psql"},
        "psql: password err-cmd-4321 rejected",
    ),
    # secrets as keys
    ("ghp_KeyAsSecret0123456789abcdefghijk", {"ghp_KeyAsSecret0123456789abcdefghijk": True}, None),
    ("keyshape-bearer-token-9988", {"headers": {"Bearer keyshape-bearer-token-9988": 1}}, None),
]


@dataclass(frozen=True)
class Failing:
    """A tool that takes any object and fails with the given message."""

    message: str
    spec: ToolSpec = field(default_factory=lambda: ToolSpec("act", {"type": "object"}))
    hints: ToolHints = field(default_factory=ToolHints)
    origin: str = "function"
    executor: str = "inline"
    timeout: float | None = None
    max_concurrency: int | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def rename(self, name: str) -> Failing:
        return replace(self, spec=replace(self.spec, name=name))

    async def invoke(self, arguments: dict[str, Any], *, progress: Any = None) -> ToolOutput:
        raise RuntimeError(self.message)


def _audit_text(record: ExecutionRecord) -> str:
    return orjson.dumps(record.to_dict()).decode() + repr(record.to_otel_attributes())


def test_the_table_has_forty_distinct_secrets() -> None:
    assert len({secret for secret, _, _ in SECRETS}) == len(SECRETS) >= 40
    for secret, arguments, error in SECRETS:  # each row really carries its secret
        assert secret in json.dumps(arguments) + (error or "")


@pytest.mark.parametrize(("secret", "arguments", "error"), SECRETS, ids=[s for s, _, _ in SECRETS])
def test_redact_removes_the_secret(
    secret: str, arguments: dict[str, Any], error: str | None
) -> None:
    raw = json.dumps(arguments)
    if secret in raw:
        stored = json.dumps(redact(arguments))
        assert secret not in stored and REDACTED in stored
        assert secret not in redact_text(raw)  # the same arguments as unparsable text
    if error is not None:
        assert secret not in redact_text(error, arguments)


@pytest.mark.anyio
@pytest.mark.parametrize("store", [True, False])
@pytest.mark.parametrize(("secret", "arguments", "error"), SECRETS, ids=[s for s, _, _ in SECRETS])
async def test_no_secret_anywhere_in_the_record(
    secret: str, arguments: dict[str, Any], error: str | None, store: bool
) -> None:
    sink = MemorySink()
    message = error if error is not None else f"failed with {arguments!r}"
    engine = ToolEngine([Failing(message)], sinks=[sink], store_arguments=store)
    result = await engine.call("act", arguments)
    assert result.status == "tool_error"
    assert secret in result.content  # the model still gets its own error back
    [record] = sink.records
    assert record.error_message and REDACTED in record.error_message
    assert secret not in _audit_text(record)


@pytest.mark.anyio
@pytest.mark.parametrize(("secret", "arguments", "error"), SECRETS, ids=[s for s, _, _ in SECRETS])
async def test_unparsable_arguments_are_stored_redacted(
    secret: str, arguments: dict[str, Any], error: str | None
) -> None:
    sink = MemorySink()
    engine = ToolEngine([Failing("x")], sinks=[sink], store_arguments=True)
    raw = json.dumps(arguments)[:-1] + ", oops}"  # not JSON, even after repair
    await engine.call("act", raw)
    [record] = sink.records
    assert record.status == "invalid_args" and record.arguments
    assert secret not in _audit_text(record)


@pytest.mark.anyio
async def test_validation_errors_and_violations_are_redacted() -> None:
    @tool
    def login(user: str, token: str) -> str:
        return "ok"

    @tool
    def fetch(path: str) -> str:
        return "ok"

    sink = MemorySink()
    engine = ToolEngine([login, fetch], sinks=[sink], policies=[PathPolicy(deny=["/etc"])])
    await engine.call("login", {"user": "bob", "token": ["ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123"]})
    await engine.call("login", {"user": "bob", "token": {"value": "plain-tok-1234"}})
    await engine.call("fetch", {"path": "file://bob:path-pw-5678@localhost/etc/x"})
    bad_type, bad_object, denied = sink.records
    assert bad_type.validation_errors and "ghp_" not in _audit_text(bad_type)
    assert "argument token" in bad_type.validation_errors[0]
    assert bad_object.validation_errors and "plain-tok-1234" not in _audit_text(bad_object)
    assert denied.status == "denied" and denied.violations
    assert "path-pw-5678" not in _audit_text(denied)


NOT_SECRETS: list[tuple[str, dict[str, Any]]] = [
    ("max_tokens", {"max_tokens": 1024}),
    ("author", {"author": "Ann Author"}),
    ("tokenizer", {"tokenizer": "cl100k_base"}),
    ("page_token", {"page_token": "page-2"}),
    ("key", {"key": "name", "sort_key": "date"}),
    ("find", {"command": "find / -path '*/x' -print -prune"}),
    ("docker", {"command": "docker run -p 8080:80 -u 1000:1000 img"}),
    ("port url", {"url": "https://host:8080/a@b"}),
    ("passage", {"passage": "a passage of text", "compass": "north"}),
    ("prose", {"text": "the key: value pairs and a token of thanks"}),
    ("booleans", {"use_auth": True, "password_set": False}),
]


@pytest.mark.parametrize(("label", "arguments"), NOT_SECRETS, ids=[n for n, _ in NOT_SECRETS])
def test_ordinary_values_are_kept(label: str, arguments: dict[str, Any]) -> None:
    assert redact(arguments) == arguments


@pytest.mark.parametrize(
    "key",
    ["passwords", "api_keys", "secrets", "tokens", "PGPASSWORD", "DB_PASS", "pass", "pw",
     "ssh_key", "sessionid", "sessionId", "X-Api-Key", "MYSQL_PWD", "csrftoken", "authToken"],
)  # fmt: skip
def test_secret_key_variants(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "unit",
    ["a", "QUJD", "a.", "a:", "-p", "mysql -p", "-u a:", "a://b:", "password", "key: ", '"', "["],
)
def test_redaction_takes_linear_time_on_long_model_output(unit: str) -> None:
    """Arguments are model output: no rule may go quadratic on a long run of text."""
    text = unit * (200_000 // len(unit))
    started = time.process_time()
    redact_text(text)
    redact({"note": text})
    assert time.process_time() - started < 2.0


# ------------------------------------------- the hash, extra and pending calls (issue 11)


@tool
def login(user: str, password: str) -> str:
    return "ok"


@pytest.mark.anyio
async def test_the_arguments_hash_cannot_be_used_to_guess_a_secret() -> None:
    """Before, the hash was an unsalted SHA-256 of the arguments as sent: a weak
    password could be found by hashing guesses. It is now the hash of the redacted
    arguments, so it tells calls apart by everything except their secrets."""
    sink = MemorySink()
    engine = ToolEngine([login], sinks=[sink])
    await engine.call("login", {"user": "ann", "password": "hunter2"})
    await engine.call("login", {"user": "ann", "password": "letmein1"})
    await engine.call("login", {"user": "bob", "password": "hunter2"})
    await engine.call("login", '{"user": "bob", "password": "zzz-other"}')  # as text
    ann1, ann2, bob1, bob2 = (r.arguments_sha256 for r in sink.records)
    for guess in ("hunter2", "letmein1"):
        for user in ("ann", "bob"):
            sent = canonical_json({"password": guess, "user": user})
            assert arguments_hash(sent) not in (ann1, ann2, bob1, bob2)
    assert ann1 == ann2 and bob1 == bob2 and ann1 != bob1  # still tells calls apart
    expected = canonical_json({"password": REDACTED, "user": "ann"})
    assert ann1 == arguments_hash(expected)


@pytest.mark.anyio
async def test_unreadable_arguments_are_hashed_redacted() -> None:
    sink = MemorySink()
    engine = ToolEngine([login], sinks=[sink])
    raw = '{"user": "ann", "password": "hunter2", oops'
    await engine.call("login", raw)
    [record] = sink.records
    assert record.status == "invalid_args"
    assert record.arguments_sha256 != arguments_hash(raw.encode())
    assert record.arguments_sha256 == arguments_hash(redact_text(raw).encode())


class QuotingPolicy:
    """A policy whose reason quotes the arguments, as hand-written ones often do."""

    def check(self, request: PolicyRequest) -> Decision | None:
        return Decision("approve", f"review {dict(request.arguments)}", "quoting")


@pytest.mark.anyio
async def test_record_extra_is_redacted() -> None:
    """``hook_errors``, ``approval_reasons`` and anything a hook adds to ``extra`` go
    through the same rules as the arguments (they were written verbatim)."""
    secret, token = "hunter2-pw", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123"

    def hook(phase: str, state: Any) -> None:
        if phase == "record":
            state.extra["note"] = f"sent Authorization: Bearer {token}"
            state.extra["nested"] = {"api_key": "plain-key-9876", "items": [token]}
            raise ValueError(f"hook saw {state.arguments}")

    sink = MemorySink()
    engine = ToolEngine([login], sinks=[sink], hooks=[hook], policies=[QuotingPolicy()])
    result = await engine.call("login", {"user": "ann", "password": secret})
    assert result.status == "pending_approval"
    [record] = sink.records
    assert record.extra["approval_reasons"] and record.extra["hook_errors"]
    text = _audit_text(record)
    for leaked in (secret, token, "plain-key-9876"):
        assert leaked not in text
    assert "review" in record.extra["approval_reasons"][0]  # the rest is kept
    assert "hook saw" in record.extra["hook_errors"][0]
    assert result.approval_id and secret in str(engine.pending()[0].arguments)


@pytest.mark.anyio
async def test_a_pending_call_shows_its_arguments_redacted() -> None:
    """The waiting call keeps its arguments (it runs with them once approved); its
    repr, which ends up in logs and tracebacks, does not show the secrets."""
    engine = ToolEngine([login], sinks=[], policies=[RequireApproval("login")])
    result = await engine.call("login", {"user": "ann", "password": "hunter2-pw"})
    [pending] = engine.pending()
    assert pending.approval_id == result.approval_id
    assert pending.arguments["password"] == "hunter2-pw"
    for shown in (repr(pending), str(pending), f"{pending}", repr([pending])):
        assert "hunter2-pw" not in shown
        assert "ann" in shown and REDACTED in shown and "login" in shown
