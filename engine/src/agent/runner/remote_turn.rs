//! A turn of a remote A2A agent (a conversation with a source that has
//! `a2a:`), where the model's turn would be: the person's message sent to
//! the agent, or, once every call its task waits on is decided, the
//! decisions sent back in the agent's contract. Its reply streams into the
//! chat as the model's does; the calls it asks approval for are proposed
//! here under the block's policy, as the model's calls are.
//!
//! A decision goes out once: before answering, the task is read, and an
//! answer it has had already (the process stopped between sending it and
//! noting it) is not sent again. An agent out of reach gets it later: the
//! run stays runnable, and the sweep steps it again.

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::Notify;

use super::turn::TurnEnd;
use super::{Agent, AgentError, StepOutcome};
use crate::a2a::kagent::{self, Verdict as Answer};
use crate::a2a::remote::{Heard, Remote, RemoteError, RemoteTask};
use crate::a2a::thread::{Asked, RemoteThread};
use crate::a2a::wire::{Message as WireMessage, Role as WireRole, TaskState, Version};
use crate::a2a::{Content, Part};
use crate::config::Connection;
use crate::decisions;
use crate::domain::markdown::Drafting;
use crate::domain::{CallStatus, DraftPiece, ProposedCall, Role, Run};
use crate::domain::{MessageId, RunStatus};

/// Which way a turn goes.
enum Way {
    /// Every call of the interrupt is decided: the agent is told.
    Answer(Asked),
    /// The task was under way when Airlock stopped: it is followed again.
    Follow(String),
    /// The person's message goes to the agent.
    Send(WireMessage),
}

/// How long decisions that could not reach their agent wait before the
/// next try.
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

impl Agent {
    /// Takes the turn of `thread`'s agent in `run`.
    pub(super) async fn take_remote_turn(
        &self,
        run: &Run,
        mut thread: RemoteThread,
        stop: &Notify,
    ) -> Result<TurnEnd, AgentError> {
        let conversation = &run.conversation_id;
        let ours = thread.run_id.as_ref() == Some(&run.id);
        let answering = thread.asked.clone().filter(|_| ours && !thread.answered);
        let remote = match self.remote(&thread.agent).await {
            Ok(remote) => remote,
            Err(e) if answering.is_some() => return self.deliver_later(run, &thread, &e).await,
            Err(e) => return self.unreachable(run, &thread, &e).await,
        };
        let drafting = Arc::new(Drafting::default());
        let events = self.core.events.clone();
        let writing_in = conversation.clone();
        let drafted = drafting.clone();
        let (named, mut naming) = tokio::sync::mpsc::unbounded_channel();
        let heard = move |heard: Heard<'_>| match heard {
            Heard::Text(text) => {
                let html = drafted.add(text);
                let text = text.to_owned();
                events.draft(&writing_in, DraftPiece::Text { text, html });
            }
            Heard::Task { id, context_id } => {
                let _ = named.send((id.to_owned(), context_id.to_owned()));
            }
        };
        // The turn answers the interrupt; or follows again the task a stop
        // of Airlock's broke off; or sends the person's message.
        let under_way = matches!(thread.task_state.as_deref(), Some("submitted" | "working"));
        let broken_off = thread.task_id.clone().filter(|_| ours && under_way);
        let way = match (answering, broken_off) {
            (Some(asked), _) => Way::Answer(asked),
            (None, Some(task)) => Way::Follow(task),
            (None, None) => {
                let message = self.said(run, &thread).await?;
                thread.run_id = Some(run.id.clone());
                thread.asked = None;
                thread.answered = false;
                thread.task_id = message.task_id.clone();
                thread.task_state = None;
                self.core.remote().save_remote_thread(&thread).await?;
                Way::Send(message)
            }
        };
        let asked = async {
            match &way {
                Way::Answer(asked) => self.answer(&remote, &thread, asked, heard).await,
                Way::Follow(task) => Ok(remote.resubscribe(task, heard).await),
                Way::Send(message) => Ok(remote.stream(message, heard).await),
            }
        };
        // The task's id is kept as soon as the agent names it: a restart
        // follows the task again instead of sending the message twice.
        let mut noted = thread.clone();
        let noting = async {
            while let Some((id, context_id)) = naming.recv().await {
                noted.task_id = Some(id);
                noted.context_id = Some(context_id)
                    .filter(|c| !c.is_empty())
                    .or(noted.context_id.take());
                noted.task_state = Some("working".to_owned());
                if let Err(e) = self.core.remote().save_remote_thread(&noted).await {
                    tracing::warn!(conversation = %conversation, error = %e, "cannot keep the agent's task");
                }
            }
        };
        let turn = async { tokio::join!(asked, noting).0 };
        let task = tokio::select! {
            biased;
            _ = stop.notified() => None,
            task = turn => Some(task?),
        };
        self.core.events.draft_ended(conversation);
        let Some(task) = task else {
            let kept = self.core.remote().remote_thread(conversation).await?;
            if let Some(id) = kept.and_then(|kept| kept.task_id) {
                if let Err(e) = remote.cancel(&id).await {
                    tracing::warn!(conversation = %conversation, error = %e, "cannot cancel the agent's task");
                }
            }
            return Ok(TurnEnd::Ended(
                self.stopped(run, &drafting.written()).await?,
            ));
        };
        let answered = matches!(way, Way::Answer(_));
        let task = match task {
            Ok(task) => task,
            Err(e) if answered => return self.deliver_later(run, &thread, &e).await,
            Err(e) => return self.unreachable(run, &thread, &e).await,
        };
        thread.answered |= answered;
        self.settle(run, thread, task).await
    }

    /// The agent's client, its card read on first use.
    async fn remote(&self, agent: &str) -> Result<Remote, RemoteError> {
        let mut known = self.remotes.lock().await;
        if let Some(remote) = known.get(agent) {
            return Ok(remote.clone());
        }
        let Some(Connection::Agent { card, headers }) =
            self.core.config.sources.get(agent).map(|s| &s.connection)
        else {
            return Err(RemoteError::BadCard {
                url: agent.to_owned(),
                why: "no source block names this agent any more".into(),
            });
        };
        let headers: HeaderMap = headers
            .iter()
            .filter_map(|(name, value)| {
                let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
                Some((name, HeaderValue::from_str(value).ok()?))
            })
            .collect();
        let remote = Remote::connect(card, headers).await?;
        known.insert(agent.to_owned(), remote.clone());
        Ok(remote)
    }

    /// The person's message that started `run`, for the agent: in its
    /// context, and to its task when that asks for words.
    async fn said(&self, run: &Run, thread: &RemoteThread) -> Result<WireMessage, AgentError> {
        let recent = self
            .core
            .conversations()
            .recent_messages(&run.conversation_id, None, 20)
            .await?;
        let text = recent
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone())
            .unwrap_or_default();
        let asking = thread.task_state.as_deref() == Some("input-required");
        Ok(WireMessage {
            id: MessageId::new().to_string(),
            role: WireRole::User,
            content: Content {
                parts: vec![Part::Text(text)],
                ..Content::default()
            },
            context_id: thread.context_id.clone(),
            task_id: thread.task_id.clone().filter(|_| asking),
        })
    }

    /// Sends the decisions on `asked`'s calls, unless the task has them
    /// already; the task after.
    async fn answer(
        &self,
        remote: &Remote,
        thread: &RemoteThread,
        asked: &Asked,
        heard: impl FnMut(Heard<'_>),
    ) -> Result<Result<RemoteTask, RemoteError>, AgentError> {
        let Some(task_id) = &thread.task_id else {
            return Ok(Err(RemoteError::BadReply(
                "the interrupt has no task".into(),
            )));
        };
        let now = match remote.get(task_id).await {
            Ok(now) => now,
            Err(e) => return Ok(Err(e)),
        };
        if now.state != TaskState::InputRequired || now.interrupt.as_ref() != Some(&asked.interrupt)
        {
            return Ok(Ok(now));
        }
        let mut verdicts = std::collections::BTreeMap::new();
        for (requested, id) in asked.interrupt.calls.iter().zip(&asked.calls) {
            let call = self.core.call(id).await?;
            let verdict = match call.status {
                CallStatus::Completed => Answer::Approve,
                _ => Answer::Reject {
                    reason: call
                        .decision
                        .and_then(|d| d.reason)
                        .or(call.error)
                        .or(Some(call.policy_reason).filter(|r| !r.is_empty())),
                },
            };
            verdicts.insert(requested.call_id.clone(), verdict);
        }
        let content = match kagent::answer(&asked.interrupt, &verdicts) {
            Ok(content) => content,
            Err(e) => return Ok(Err(RemoteError::BadReply(e.to_string()))),
        };
        let message = WireMessage {
            id: MessageId::new().to_string(),
            role: WireRole::User,
            content,
            context_id: thread.context_id.clone(),
            task_id: Some(task_id.clone()),
        };
        Ok(remote.stream(&message, heard).await)
    }

    /// Records where the agent's task stands after a turn.
    async fn settle(
        &self,
        run: &Run,
        mut thread: RemoteThread,
        task: RemoteTask,
    ) -> Result<TurnEnd, AgentError> {
        let conversation = &run.conversation_id;
        if !task.context_id.is_empty() {
            thread.context_id = Some(task.context_id.clone());
        }
        if !task.id.is_empty() {
            thread.task_id = Some(task.id.clone());
        }
        thread.task_state = Some(task.state.name(Version::V03).to_owned());
        thread.updated_at = self.core.clock.now();
        let said = task
            .said
            .as_ref()
            .map(|m| m.content.text())
            .unwrap_or_default();
        let words = match task.artifacts.trim() {
            "" => said.clone(),
            artifacts => artifacts.to_owned(),
        };
        if let (TaskState::InputRequired, Some(interrupt)) = (task.state, &task.interrupt) {
            let message = self.say(conversation, &said).await?;
            let proposals = interrupt.calls.iter().map(|c| ProposedCall {
                source: thread.agent.clone(),
                tool: super::ending::storable(&c.name),
                arguments: c.args.clone(),
                read_only_hint: false,
            });
            let turn = decisions::Turn {
                run,
                message_seq: message.seq,
            };
            let proposed = decisions::propose_in_run(
                &self.core,
                conversation,
                Some(turn),
                proposals.collect(),
            )
            .await?;
            thread.asked = Some(Asked {
                interrupt: interrupt.clone(),
                calls: proposed.into_iter().map(|c| c.id).collect(),
            });
            thread.answered = false;
            self.core.remote().save_remote_thread(&thread).await?;
            return Ok(TurnEnd::Proposed);
        }
        self.core.remote().save_remote_thread(&thread).await?;
        let (last, status, error) = match task.state {
            TaskState::Completed | TaskState::InputRequired => {
                (self.reply(conversation, &words), RunStatus::Done, None)
            }
            TaskState::Canceled => {
                let notice = format!("{} canceled the task.", thread.agent);
                (self.notice(conversation, &notice), RunStatus::Stopped, None)
            }
            state => {
                let why = match words.trim() {
                    "" => format!(
                        "{} could not do it: its task is {}.",
                        thread.agent,
                        state.name(Version::V03)
                    ),
                    words => format!("{} could not do it: {words}", thread.agent),
                };
                (
                    self.notice(conversation, &why),
                    RunStatus::Failed,
                    Some(why),
                )
            }
        };
        self.conclude(run, last, status, error.as_deref()).await?;
        Ok(TurnEnd::Ended(match status {
            RunStatus::Failed => StepOutcome::Failed(error.unwrap_or_default()),
            RunStatus::Stopped => StepOutcome::Stopped,
            _ => StepOutcome::Done,
        }))
    }

    /// The person's message could not reach the agent: the run ends, saying why.
    async fn unreachable(
        &self,
        run: &Run,
        thread: &RemoteThread,
        e: &RemoteError,
    ) -> Result<TurnEnd, AgentError> {
        let why = format!(
            "{} did not get the message: {e}. Send it again once it is back.",
            thread.agent
        );
        let notice = self.notice(&run.conversation_id, &why);
        let error = e.to_string();
        self.conclude(run, notice, RunStatus::Failed, Some(&error))
            .await?;
        Ok(TurnEnd::Ended(StepOutcome::Failed(error)))
    }

    /// The decisions could not reach the agent: the run stays runnable,
    /// and the sweep tries again.
    async fn deliver_later(
        &self,
        run: &Run,
        thread: &RemoteThread,
        e: &RemoteError,
    ) -> Result<TurnEnd, AgentError> {
        tracing::warn!(conversation = %run.conversation_id, agent = %thread.agent, error = %e, "the decisions wait to reach the agent");
        // Held a moment, so the release's own wake-up does not knock again
        // at once.
        tokio::time::sleep(RETRY_AFTER).await;
        self.release(&run.id, RunStatus::Running).await?;
        Ok(TurnEnd::Ended(StepOutcome::Busy))
    }
}
