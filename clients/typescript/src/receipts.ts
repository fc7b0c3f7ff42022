// Check a decision's receipt on your own, before acting on a call.
//
// Airlock signs every decision: the HITL poll's `result.signature.value` is
// a compact JWS (Ed25519) over the call's source, tool and the SHA-256 of its
// arguments in RFC 8785 canonical JSON, the decision, who took it and when.
// A service that runs calls can refuse any call without a valid receipt for
// exactly its arguments:
//
//   const keys = await (await fetch("https://airlock.example/.well-known/jwks.json")).json();
//   const claims = verifyReceipt(receipt, keys, { arguments: callArguments });
//   if (!claims.approved) throw new Error(`${claims.decision} by ${claims.decided_by}`);

import { createHash, createPublicKey, verify } from "node:crypto";

import { AirlockError } from "./errors.js";

export const TOKEN_TYPE = "airlock-receipt+jwt";

/** What a receipt says. */
export interface ReceiptClaims {
  iss: string;
  call_id: string;
  source: string;
  tool: string;
  arguments_sha256: string;
  approved: boolean;
  decision: string;
  decided_by: string;
  approvers: string[];
  iat: number;
  exp: number;
}

/** A key set, as served at `/.well-known/jwks.json`. */
export interface KeySet {
  keys: { kty: string; crv: string; x: string; kid: string }[];
}

/**
 * The receipt does not show what it should; `code` says why:
 * `receipt_malformed`, `receipt_algorithm`, `receipt_unknown_key`,
 * `receipt_bad_signature`, `receipt_expired` or `receipt_arguments_differ`.
 */
export class ReceiptRefused extends AirlockError {}

/**
 * RFC 8785's canonical JSON: keys sorted by UTF-16 code units, no spaces,
 * and numbers and strings as JavaScript writes them (which is what the
 * RFC prescribes).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const object = value as Record<string, unknown>;
  const fields = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`);
  return `{${fields.join(",")}}`;
}

/** The SHA-256, in hex, of `args` in canonical JSON. */
export function argumentsDigest(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args), "utf8").digest("hex");
}

/**
 * What `receipt` says, once one of `keys` signed it, it has not expired at
 * `now` (seconds since the epoch; by default the clock's), and, when
 * `arguments` are given, it is for exactly those. Throws `ReceiptRefused`
 * otherwise.
 */
export function verifyReceipt(
  receipt: string,
  keys: KeySet,
  options: { arguments?: unknown; now?: number } = {},
): ReceiptClaims {
  const parts = receipt.trim().split(".");
  const [head, body, signature] = parts;
  if (parts.length !== 3 || head === undefined || body === undefined || signature === undefined) {
    throw malformed();
  }
  const header = decodeJson(head) as { alg?: string; kid?: string; typ?: string };
  if (header.alg !== "EdDSA") throw new ReceiptRefused("receipt_algorithm", `signed with ${String(header.alg)}`);
  if (header.typ !== TOKEN_TYPE) throw malformed();
  const key = keys.keys.find((k) => k.kid === header.kid);
  if (!key) throw new ReceiptRefused("receipt_unknown_key", `key ${String(header.kid)} is not among the keys given`);
  if (key.kty !== "OKP" || key.crv !== "Ed25519") {
    throw new ReceiptRefused("receipt_algorithm", `key ${key.kid} is not an Ed25519 key`);
  }
  let signed = false;
  try {
    const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x }, format: "jwk" });
    signed = verify(null, Buffer.from(`${head}.${body}`), publicKey, decode(signature));
  } catch (e) {
    if (e instanceof ReceiptRefused) throw e;
  }
  if (!signed) throw new ReceiptRefused("receipt_bad_signature", "the signature does not match");
  const claims = decodeJson(body) as unknown as ReceiptClaims;
  if (claims.exp <= (options.now ?? Date.now() / 1000)) {
    throw new ReceiptRefused("receipt_expired", `the receipt expired at ${claims.exp}`);
  }
  if (options.arguments !== undefined && argumentsDigest(options.arguments) !== claims.arguments_sha256) {
    throw new ReceiptRefused("receipt_arguments_differ", "the receipt is for other arguments");
  }
  return claims;
}

function malformed(): ReceiptRefused {
  return new ReceiptRefused("receipt_malformed", "this is not a receipt");
}

function decode(part: string): Buffer {
  if (!/^[A-Za-z0-9_-]+$/.test(part)) throw malformed();
  return Buffer.from(part, "base64url");
}

function decodeJson(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decode(part).toString("utf8"));
  } catch {
    throw malformed();
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw malformed();
  return value as Record<string, unknown>;
}
