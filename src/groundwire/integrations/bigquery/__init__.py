"""A BigQuery remote function that checks grounding in SQL: `create_app()` is its ASGI app.

`SELECT grounding.check(answer, facts) FROM evals.answers` calls this endpoint (usually on
Cloud Run) in batches of rows; each row gets a JSON reply (the support score, claims with
`str` offsets and citations) or a JSON error, and a call whose rows are still throttled when
its time is up answers a status BigQuery retries. The docs' "BigQuery" page shows the
deployment and the `CREATE FUNCTION` statement.
"""

from groundwire.integrations.bigquery.app import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_TIME_BUDGET,
    RemoteFunctionApp,
    create_app,
)
from groundwire.integrations.bigquery.protocol import CONTEXT_KEYS, RETRYABLE_STATUSES

__all__ = [
    "CONTEXT_KEYS",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_TIME_BUDGET",
    "RETRYABLE_STATUSES",
    "RemoteFunctionApp",
    "create_app",
]
