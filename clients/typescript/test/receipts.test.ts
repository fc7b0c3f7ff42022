// Receipts checked here as Airlock checks them: every vector in
// clients/receipt-vectors.json (made by the engine) comes out the same.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { ReceiptRefused, verifyReceipt, type KeySet } from "../src/index.js";

interface Case {
  name: string;
  receipt: string;
  arguments: string | null;
  now: number;
  outcome: { valid: boolean; claims?: unknown; code?: string };
}

const vectors = JSON.parse(readFileSync(new URL("../../../receipt-vectors.json", import.meta.url), "utf8")) as {
  keys: KeySet;
  cases: Case[];
};

for (const c of vectors.cases) {
  test(`receipt vector: ${c.name}`, () => {
    const options = {
      arguments: c.arguments === null ? undefined : (JSON.parse(c.arguments) as unknown),
      now: c.now,
    };
    if (c.outcome.valid) {
      assert.deepEqual(verifyReceipt(c.receipt, vectors.keys, options), c.outcome.claims);
    } else {
      assert.throws(
        () => verifyReceipt(c.receipt, vectors.keys, options),
        (e: unknown) => e instanceof ReceiptRefused && e.code === c.outcome.code,
      );
    }
  });
}
