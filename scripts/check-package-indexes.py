#!/usr/bin/env python3
"""Before the image build's pip runs: can each package index it is about to use be reached? One that cannot
fails the build at once, naming the build argument, the index and why, instead of pip retrying it for every
package.

    python3 scripts/check-package-indexes.py NAME [NAME ...]

Each NAME is an environment variable holding an index URL (PIP_EXTRA_INDEX_URL: several, separated by
spaces): PIP_INDEX_URL unset or empty means PyPI, pip's default; any other unset or empty one is skipped.
An index is reachable when its server answers a request for a project page (PROBE_PROJECT, default numpy;
torch for TORCH_INDEX_URL) with a status other than 401, 403, 407 or 5xx. It trusts what pip would: the
CA bundle in PIP_CERT when set, the hosts in PIP_TRUSTED_HOST, and the proxy in HTTPS_PROXY/HTTP_PROXY.
Exit status 0: all reachable; 1: at least one is not (each is printed on stderr); 2: usage.
Standard library only: it runs on the bare base image, before anything is installed.
"""

from __future__ import annotations

import base64
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

PYPI = "https://pypi.org/simple"
TIMEOUT = float(os.environ.get("INDEX_CHECK_TIMEOUT", "10"))  # seconds, per attempt
ATTEMPTS = 2
REFUSED_STATUSES = {401: "credentials refused", 403: "access forbidden", 407: "proxy authentication required"}
HINTS = {
    "PIP_INDEX_URL": "set the build argument PIP_INDEX_URL to a package mirror this build can reach",
    "PIP_EXTRA_INDEX_URL": "set the build argument PIP_EXTRA_INDEX_URL to a reachable index, or empty (none)",
    "TORCH_INDEX_URL": "set the build argument TORCH_INDEX_URL to a reachable mirror of it, or give the build "
                       "the torch wheel in the `wheels` build context (then no index is asked for torch)",
}


def shown(url: str) -> str:
    """The URL without its password (index URLs may carry credentials)."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def probe_url(index: str, project: str) -> tuple[str, dict[str, str]]:
    """The project page's URL under `index`, credentials moved into a header."""
    parts = urllib.parse.urlsplit(index)
    headers = {"User-Agent": "eksbot image build: index check",
               "Accept": "application/vnd.pypi.simple.v1+json, text/html"}
    if parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    path = parts.path.rstrip("/") + f"/{project}/"
    return urllib.parse.urlunsplit(parts._replace(path=path, query="", fragment="")), headers


def tls_context(host: str) -> ssl.SSLContext:
    trusted = {h.split(":")[0] for h in os.environ.get("PIP_TRUSTED_HOST", "").split()}
    if host in trusted:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    cert = os.environ.get("PIP_CERT") or None
    return ssl.create_default_context(cafile=cert)


def problem(index: str, project: str) -> str | None:
    """None when the index answers, else why not."""
    if urllib.parse.urlsplit(index).scheme not in ("http", "https"):
        return None  # a file:// index or a path: nothing to reach
    url, headers = probe_url(index, project)
    host = urllib.parse.urlsplit(url).hostname or ""
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=tls_context(host)))
    reason = "no answer"
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(1)
        try:
            with opener.open(urllib.request.Request(url, headers=headers), timeout=TIMEOUT):
                return None
        except urllib.error.HTTPError as exc:
            if exc.code in REFUSED_STATUSES:
                return f"HTTP {exc.code} ({REFUSED_STATUSES[exc.code]})"
            if exc.code < 500:
                return None  # the server answered (404: it has no such project, which pip will say)
            reason = f"HTTP {exc.code}"
        except urllib.error.URLError as exc:
            reason = str(exc.reason)
        except (TimeoutError, OSError) as exc:
            reason = f"{exc.__class__.__name__}: {exc}" if str(exc) else exc.__class__.__name__
    return f"{reason} ({ATTEMPTS} attempts, {TIMEOUT:g} s timeout each)"


def main(argv: list[str]) -> int:
    if not argv or any(not name.isidentifier() for name in argv):
        print(__doc__, file=sys.stderr)
        return 2
    failed = 0
    for name in argv:
        value = os.environ.get(name, "").strip()
        if not value and name == "PIP_INDEX_URL":
            value = PYPI
        project = os.environ.get("PROBE_PROJECT") or ("torch" if name == "TORCH_INDEX_URL" else "numpy")
        for index in value.split():
            why = problem(index, project)
            if why is None:
                print(f"package index reachable: {name}={shown(index)}", file=sys.stderr)
                continue
            failed += 1
            hint = HINTS.get(name, f"set {name} to an index this build can reach")
            print(f"package index unreachable: {name}={shown(index)}: {why}; {hint}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
