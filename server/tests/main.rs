//! The server through its public surface: every integration test, in one
//! binary. Each file below is one concern's tests; the folders are the rigs
//! they share. One binary links the whole app once, where one per file
//! linked it forty times over (seven gigabytes of a clean build's disk).

mod crash_rig;
mod hitl_server;
mod http_app;
mod slack_side;
mod support;

mod a2a;
mod a2a_clients;
mod a2a_people;
mod a2a_remote;
mod a2a_restarts;
mod a2a_sources;
mod access;
mod api_tokens;
mod audit;
mod card_answers;
mod code_policies;
mod crashes;
mod cross_site;
mod form_drafts;
mod groups;
mod hitl;
mod hitl_retries;
mod hitl_streams;
mod hook;
mod http;
mod http_streams;
mod import_cli;
mod inbox_pages;
mod inline_submit;
mod inngest_channel;
mod log_settings;
mod mcp;
mod mcp_here;
mod message_order;
mod metrics;
mod notice_channels;
mod notices;
mod nul_text;
mod oidc;
mod otlp;
mod people_cli;
mod policy_cli;
mod previews;
mod probes;
mod question_updates;
mod quorum;
mod races;
mod receipts;
mod replicas;
mod review_forms;
mod review_rounds;
mod review_sign_in;
mod review_types;
mod setup_link;
mod shadow;
mod sign_in;
mod slack_app;
mod sources;
mod terminal;
