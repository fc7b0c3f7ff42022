//! The ground floor: what Airlock's records are (ids, conversations and
//! messages, tool calls and their decisions, runs, grants, review cases,
//! events) with their small pure methods. It imports nothing else of the
//! engine, so every layer above can use it and none is needed to read it.

pub mod actor;
pub mod audit;
pub mod backlog;
pub mod call;
pub mod callback;
pub mod caller;
pub mod conversation;
pub mod decision;
pub mod event;
pub mod form;
pub mod grant;
pub mod grant_arguments;
pub mod id;
pub mod inbox_page;
pub mod kept_request;
pub mod list_page;
pub mod markdown;
pub mod notice;
pub mod passkey;
pub mod person;
pub mod preview;
pub mod quorum;
pub mod receipt_key;
pub mod review;
pub mod review_flow;
pub mod review_shape;
pub mod review_words;
pub mod run;
pub mod shadow;
pub mod submission;
pub mod token;
pub mod verdict;
pub mod view;

pub use actor::{Actor, Refusal};
pub use audit::{
    AuditEntry, AuditLine, AuditPage, AuditQuery, ChainBreak, ChainCheck, KeptHead, Seal,
};
pub use backlog::{Backlog, PendingCount};
pub use call::{CallStatus, ExpiryAction, ProposedCall, ToolCall, AGENT_SOURCE, QUESTION_TOOL};
pub use callback::{Callback, CallbackAttempt};
pub use caller::{Caller, CallerKind};
pub use conversation::{
    title_from_message, Conversation, ConversationSummary, Message, Role, UNTITLED,
};
pub use decision::{Channel, Decision, DecisionKind, SYSTEM_TIMEOUT};
pub use event::{CallDraft, Draft, DraftPiece, Event, EventKind, NewEvent};
pub use form::draft::{DraftEntry, FormDraft, FormProgress};
pub use form::{FieldProblem, Form, FormField, FormStep};
pub use grant::{Grant, GrantEntry, GrantScope};
pub use grant_arguments::{GrantArgumentChoice, GrantArguments};
pub use id::ToolCallId;
pub use id::{ApiTokenId, BatchId, ConversationId, GrantId, IdError, MessageId, PersonId};
pub use id::{RunId, SessionId};
pub use inbox_page::{InboxCursor, InboxQuery};
pub use kept_request::{idempotency_key, request_fingerprint, KeptAnswer, KeptRequest};
pub use list_page::{ConversationPage, ListCursor, ListPage};
pub use notice::{Announcement, FollowUp, Notice, PlannedNotice};
pub use passkey::{Passkey, PasskeyChallenge};
pub use person::API_TOKEN_PREFIX;
pub use person::{Access, Action, ApiToken, Person, PersonRef, Session, SessionToken};
pub use preview::{
    CommandPreview, CommandStep, CommandWord, Diff, DiffLine, DryRunPreview, FileChange,
    FilePreview, Hunk, LineTag, Preview,
};
pub use quorum::{Approval, Quorum, MAX_APPROVALS};
pub use receipt_key::ReceiptKey;
pub use review::{
    CaseEvent, CaseId, CaseStatus, CaseType, LinkedCase, NewCase, Requester, ReviewCase,
    MAX_PROMPT_CHARS,
};
pub use review_flow::reminder_event;
pub use review_flow::{asked_type, case_for, closing, closing_of, event_data};
pub use review_flow::{prompt_for, question_type};
pub use review_flow::{rfc3339, Closing};
pub use review_shape::{Choice, ReviewShape};
pub use run::{lease_until, Run, RunStatus, LEASE_SECONDS};
pub use shadow::ShadowVerdict;
pub use submission::{SubmissionContext, SubmittedBy, VerificationResult};
pub use token::{hash_text, ReviewToken};
pub use verdict::{PasskeyProof, Reviewer, Verdict};
pub use view::{ConversationSnapshot, ConversationView, InboxSnapshot, Posted, TitledInbox};
