// Ask Airlock before a tool call runs.
//
//   import { Airlock } from "@airlock/client";
//   const airlock = new Airlock(); // AIRLOCK_URL, AIRLOCK_API_KEY
//   const decision = await airlock.ask("delete_file", { path: "notes.txt" }, { source: "files" });
//   if (decision.runs) await deleteFile(decision.arguments);

export { Airlock, VERSION, type AirlockOptions, type AskOptions, type WaitOptions } from "./client.js";
export type { Arguments, Decision, Outcome, Pending } from "./decision.js";
export {
  AirlockError,
  Closed,
  InvalidRequest,
  NotFound,
  Refused,
  Rejected,
  ServerError,
  StillWaiting,
  Unauthorized,
  Unreachable,
} from "./errors.js";
export {
  ReceiptRefused,
  argumentsDigest,
  canonicalJson,
  verifyReceipt,
  type KeySet,
  type ReceiptClaims,
} from "./receipts.js";
