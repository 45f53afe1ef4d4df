"""The error base classes; errors.py has one subclass per API code."""

from __future__ import annotations

from typing import Any, Optional


class BerthError(Exception):
    """An error the gateway answered: ``{"error": {code, message, retryable, ...}}``.

    ``hint`` says what a caller can do about it; ``retryable`` whether the
    same unit of work may succeed later (after ``retry_after`` seconds when
    the server said).
    """

    code_name: str = ""

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        retryable: bool = False,
        retry_after: Optional[float] = None,
        context: Optional[dict[str, Any]] = None,
        hint: str = "",
        request_id: Optional[str] = None,
    ) -> None:
        super().__init__(f"{code} (HTTP {status}): {message}")
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.context = context or {}
        self.hint = hint
        self.request_id = request_id


class ConnectionError(BerthError):  # noqa: A001 - the SDK's own, a BerthError
    """No answer from the gateway (refused, reset): retryable, it may be restarting."""

    def __init__(self, message: str) -> None:
        super().__init__(
            "CONNECTION_FAILED",
            message,
            0,
            retryable=True,
            hint="The gateway could not be reached: check the URL, or retry if it is restarting.",
        )
