"""Check a decision's receipt on your own, before acting on a call.

Airlock signs every decision: the HITL poll's `result.signature.value` is a
compact JWS (Ed25519) over the call's source, tool and the SHA-256 of its
arguments in RFC 8785 canonical JSON, the decision, who took it and when.
A service that runs calls can refuse any call without a valid receipt for
exactly its arguments:

    keys = httpx.get("https://airlock.example/.well-known/jwks.json").json()
    claims = verify_receipt(receipt, keys, arguments=call_arguments)
    if not claims["approved"]:
        raise PermissionError(f"{claims['decision']} by {claims['decided_by']}")

Needs the `receipts` extra (`pip install airlock-client[receipts]`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import time
from typing import Any, Dict, Mapping, Optional

from .errors import AirlockError

TOKEN_TYPE = "airlock-receipt+jwt"


class ReceiptRefused(AirlockError):
    """The receipt does not show what it should; `code` says why:
    `receipt_malformed`, `receipt_algorithm`, `receipt_unknown_key`,
    `receipt_bad_signature`, `receipt_expired` or `receipt_arguments_differ`."""


def arguments_digest(arguments: Any) -> str:
    """The SHA-256, in hex, of `arguments` in RFC 8785 canonical JSON."""
    import rfc8785

    return hashlib.sha256(rfc8785.dumps(arguments)).hexdigest()


def verify_receipt(
    receipt: str,
    keys: Mapping[str, Any],
    *,
    arguments: Any = None,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """What `receipt` says, once one of `keys` (a JWKS, as served at
    `/.well-known/jwks.json`) signed it, it has not expired at `now` (seconds
    since the epoch; by default the clock's), and, when `arguments` are
    given, it is for exactly those. Raises `ReceiptRefused` otherwise."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    parts = receipt.strip().split(".")
    if len(parts) != 3:
        raise ReceiptRefused("receipt_malformed", "this is not a receipt")
    header = _decode_json(parts[0])
    if header.get("alg") != "EdDSA":
        raise ReceiptRefused("receipt_algorithm", f"signed with {header.get('alg')!r}")
    if header.get("typ") != TOKEN_TYPE:
        raise ReceiptRefused("receipt_malformed", "this is not a receipt")
    kid = header.get("kid")
    key = next((k for k in keys.get("keys", []) if k.get("kid") == kid), None)
    if key is None:
        raise ReceiptRefused("receipt_unknown_key", f"key {kid!r} is not among the keys given")
    if key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
        raise ReceiptRefused("receipt_algorithm", f"key {kid!r} is not an Ed25519 key")
    try:
        public = Ed25519PublicKey.from_public_bytes(_decode(key["x"]))
        public.verify(_decode(parts[2]), f"{parts[0]}.{parts[1]}".encode())
    except (InvalidSignature, ValueError):
        raise ReceiptRefused("receipt_bad_signature", "the signature does not match") from None
    claims = _decode_json(parts[1])
    if claims["exp"] <= (time.time() if now is None else now):
        raise ReceiptRefused("receipt_expired", f"the receipt expired at {claims['exp']}")
    if arguments is not None and arguments_digest(arguments) != claims["arguments_sha256"]:
        raise ReceiptRefused("receipt_arguments_differ", "the receipt is for other arguments")
    return claims


def _decode(part: str) -> bytes:
    if not part or "=" in part:
        raise ReceiptRefused("receipt_malformed", "this is not a receipt")
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        raise ReceiptRefused("receipt_malformed", "this is not a receipt") from None


def _decode_json(part: str) -> Dict[str, Any]:
    try:
        value = json.loads(_decode(part))
    except ValueError:
        raise ReceiptRefused("receipt_malformed", "this is not a receipt") from None
    if not isinstance(value, dict):
        raise ReceiptRefused("receipt_malformed", "this is not a receipt")
    return value
