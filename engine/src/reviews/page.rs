//! What a review page's form does: a response or a withdrawal through the
//! case's link, answered with the page it leads to, in one call.

use serde_json::{json, Value};

use super::respond::{
    cancel_review, respond_with_passkey, review_view, view_of, ReviewView, Submission,
};
use crate::core::Core;
use crate::domain::{Actor, CaseId, Channel};
use crate::error::EngineError;

/// A review page's form as the browser posts it: every field text, and
/// only those of the button pressed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageForm {
    /// The button pressed: approve, reject, edit or submit; `None` when
    /// Withdraw was pressed (one button sends one name).
    pub action: Option<String>,
    /// Why, for a rejection.
    pub reason: Option<String>,
    /// The edited arguments as JSON text, for an edit.
    pub arguments: Option<String>,
    /// The typed answer, for a question.
    pub answer: Option<String>,
    /// The chosen option, for a question with choices; wins over `answer`.
    pub choice: Option<String>,
    /// Who responds, in their own words; becomes `responded_by`.
    pub name: Option<String>,
    /// Whether Withdraw was pressed.
    pub withdraw: bool,
    /// Why the case is withdrawn.
    pub withdraw_reason: Option<String>,
    /// The passkey assertion an approval of a call that needs one comes with.
    pub passkey: Option<crate::domain::PasskeyProof>,
}

impl PageForm {
    /// The submission the pressed button makes of the form, as an agent
    /// would post it. Pure: the case's type is checked when it is read.
    pub fn submission(self) -> Result<Submission, EngineError> {
        let action = self.action.ok_or_else(|| {
            EngineError::invalid("action", "choose approve, reject, edit or submit")
        })?;
        let data = match action.as_str() {
            "reject" => json!({ "feedback": self.reason.unwrap_or_default() }),
            "edit" => json!({ "edits": edited(self.arguments.as_deref().unwrap_or(""))? }),
            "submit" => json!({ "answer": self.choice.or(self.answer).unwrap_or_default() }),
            _ => json!({}),
        };
        Ok(Submission {
            action,
            data,
            responded_by: self.name,
        })
    }
}

/// The edited arguments: a JSON object, or what is wrong with the text.
fn edited(text: &str) -> Result<Value, EngineError> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err(EngineError::invalid(
            "arguments",
            "arguments must be a JSON object, like {\"path\": \"notes.txt\"}",
        )),
        Err(e) => Err(EngineError::invalid(
            "arguments",
            format!("not valid JSON: {e}"),
        )),
    }
}

/// Responds to, or withdraws, the case behind the link once, on channel
/// `review_page`; the case's page as it then stands. A response that comes
/// after someone else decided leads to the page as they left it
/// ([`ReviewView::decided_first`]): the reviewer sees who decided, and what.
pub(crate) async fn respond_on_page(
    core: &Core,
    id: &CaseId,
    presented: &str,
    form: PageForm,
    by: Option<&Actor>,
) -> Result<ReviewView, EngineError> {
    let channel = Channel::ReviewPage;
    let responded = if form.withdraw {
        let reason = form.withdraw_reason.filter(|r| !r.trim().is_empty());
        let responded_by = form.name.as_deref();
        cancel_review(core, id, presented, reason, responded_by, channel, by).await
    } else {
        let passkey = form.passkey.clone();
        let submission = form.submission()?;
        respond_with_passkey(core, id, presented, submission, channel, by, passkey).await
    };
    match responded {
        Ok(case) => view_of(core, case).await,
        Err(EngineError::AlreadyDecided { .. }) => {
            let view = review_view(core, id, presented, by).await?;
            Ok(ReviewView {
                decided_first: true,
                ..view
            })
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pressed(action: &str) -> PageForm {
        PageForm {
            action: Some(action.to_owned()),
            ..PageForm::default()
        }
    }

    #[test]
    fn each_button_reads_its_own_fields() {
        let reject = PageForm {
            reason: Some("too broad".into()),
            answer: Some("ignored".into()),
            ..pressed("reject")
        };
        assert_eq!(
            reject.submission().unwrap().data,
            json!({"feedback": "too broad"})
        );
        let edit = PageForm {
            arguments: Some(r#"{"path": "b"}"#.into()),
            name: Some("Ana".into()),
            ..pressed("edit")
        };
        let edit = edit.submission().unwrap();
        assert_eq!(edit.data, json!({"edits": {"path": "b"}}));
        assert_eq!(edit.responded_by.as_deref(), Some("Ana"));
        let chosen = PageForm {
            answer: Some("typed".into()),
            choice: Some("picked".into()),
            ..pressed("submit")
        };
        assert_eq!(
            chosen.submission().unwrap().data,
            json!({"answer": "picked"})
        );
        assert_eq!(pressed("approve").submission().unwrap().data, json!({}));
    }

    #[test]
    fn a_form_without_a_button_or_with_bad_edits_says_which_field() {
        let none = PageForm::default().submission().unwrap_err();
        assert!(matches!(
            none,
            EngineError::Invalid {
                field: "action",
                ..
            }
        ));
        for (text, says) in [("[1]", "JSON object"), ("{\"path\": ", "not valid JSON")] {
            let edit = PageForm {
                arguments: Some(text.into()),
                ..pressed("edit")
            };
            match edit.submission() {
                Err(EngineError::Invalid {
                    field: "arguments",
                    message,
                }) => {
                    assert!(message.contains(says), "{message}")
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
