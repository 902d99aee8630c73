"""Limits on what one knowledge file may hold, so that no single file can exhaust the service."""

MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
